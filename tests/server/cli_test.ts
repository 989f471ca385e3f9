import assert from "node:assert/strict";
import { remoteRequest } from "../../tools/testing/remote.ts";
import { startTestService } from "../../tools/testing/service.ts";
import { CLI_COMMANDS, CLI_USAGE, runCli } from "../../server/cli.ts";
import { SERVE_USAGE } from "../../server/config.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function cli(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", MAIN, ...args],
    stdout: "piped",
  })
    .output();
  return { code: out.code, text: new TextDecoder().decode(out.stdout) };
}

Deno.test("cueport --help names every operator command and every port a default start opens", () => {
  const commands = SERVE_USAGE.slice(0, SERVE_USAGE.indexOf("\n\n"));
  for (const command of CLI_COMMANDS) {
    assert.match(commands, new RegExp(`(cueport|\\|) ${command}\\b`), `${command} in --help`);
  }
  const ports = SERVE_USAGE.slice(SERVE_USAGE.indexOf("Starts"), SERVE_USAGE.indexOf("Options"));
  const D = SETTING_DEFAULTS;
  for (
    const port of [D.httpPort, D.wsPort, D.oscPort, D.oscQueryPort, D.midiPort, D.legacyHttpPort]
  ) {
    assert.match(ports, new RegExp(`\\b${port}\\b`), `port ${port} in --help`);
  }
  assert.match(ports, new RegExp(`\\b${D.legacyWsPort}\\b`));
});

Deno.test("an operator command given an argument it does not take says so, with its usage, exit 2", async () => {
  for (const [command, args] of [["pair", ["extra"]], ["devices", ["x"]], ["revoke", ["a", "b"]]]) {
    const lines: string[] = [];
    const code = await runCli(command as string, args as string[], (l) => lines.push(l));
    assert.equal(code, 2, `${command} ${args}`);
    assert.match(
      lines.join("\n"),
      new RegExp(
        `^cueport ${command}: unexpected argument "${
          (args as string[]).at(-1)
        }"\n\nUsage: cueport ${command}`,
      ),
    );
  }
});

Deno.test("cueport pair, devices and revoke talk to the running service", async () => {
  const svc = await startTestService();
  const port = String(svc.service.ports.http);
  try {
    const pair = await cli("pair", "--http-port", port);
    assert.equal(pair.code, 0);
    const otp = /Pairing code: (\d{6})/.exec(pair.text)?.[1];
    assert.ok(otp, pair.text);
    // The web remote's address follows (per LAN address, or localhost on a machine without one).
    assert.match(pair.text, /^Remote: http:\/\/\S+:\d+\//m);
    const paired = await svc.post("/api/v1/pair", { otp, deviceName: "Desk" });
    assert.equal(paired.status, 200);
    const devices = await cli("devices", "--http-port", port);
    assert.match(
      devices.text,
      new RegExp(`${paired.body.deviceId}  Desk  scopes=view,control,edit`),
    );
    const revoke = await cli("revoke", paired.body.deviceId, "--http-port", port);
    assert.deepEqual([revoke.code, revoke.text.trim()], [0, `Revoked ${paired.body.deviceId}`]);
    assert.match((await cli("devices", "--http-port", port)).text, /No paired devices/);
    const none = await cli("approvals", "--http-port", port);
    assert.equal(none.text.trim(), "No client is waiting for approval");
    const second = await svc.post("/api/v1/pair", {
      otp: /(\d{6})/.exec((await cli("pair", "--http-port", port)).text)![1],
    });
    const rotate = await cli("rotate-key", "--http-port", port);
    assert.equal(rotate.text.trim(), "Signing key rotated; 1 device(s) revoked");
    const remote = await remoteRequest(svc.service.ports.http, "GET", "/api/v1/projects", {
      headers: { authorization: `Bearer ${second.body.token}` },
    });
    assert.equal(remote.status, 401, "tokens signed with the old key stop working");
    const again = await cli("revoke", paired.body.deviceId, "--http-port", port);
    assert.equal(again.code, 1);
    assert.match(again.text, /is not paired/);
    // approve and deny (in this process: each spawn costs a second)
    for (const command of ["approve", "deny"]) {
      const lines: string[] = [];
      const unknown = await runCli(command, ["nobody", "--http-port", port], (l) => lines.push(l));
      assert.equal(unknown, 1);
      assert.match(lines.join("\n"), new RegExp(`^cueport ${command}: .*nobody`));
      lines.length = 0;
      assert.equal(await runCli(command, ["--http-port", port], (l) => lines.push(l)), 2);
      assert.deepEqual(lines, [CLI_USAGE], "no id: the usage");
    }
  } finally {
    await svc.stop();
  }
  const down = await cli("devices", "--http-port", port);
  assert.equal(down.code, 1);
  assert.match(down.text, /Cannot reach Cueport/);
});
