import assert from "node:assert/strict";
import { CLI_COMMANDS } from "../../../server/cli.ts";
import { SERVICE_FLAGS } from "../../../server/deploy/permissions.ts";
import { formatUptime, runStatusCommand } from "../../../server/deploy/status_command.ts";
import {
  installProblem,
  runServiceCommand,
  selfCommand,
  serviceSteps,
} from "../../../server/deploy/service_command.ts";
import { formatLogLine } from "../../../server/log.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { OscPeer } from "../osc/_peer.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

async function cueport(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVICE_FLAGS, MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { RUST_BACKTRACE: "0" },
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}

Deno.test("every command answers --help with its own usage; the main usage lists them all", async () => {
  const main = await cueport(["--help"]);
  assert.equal(main.code, 0);
  for (const command of ["serve", "player", ...CLI_COMMANDS]) {
    assert.match(main.stdout, new RegExp(`cueport .*\\b${command}\\b`), `main usage: ${command}`);
    const help = await cueport([command, "--help"]);
    assert.equal(help.code, 0, `${command} --help: ${help.stderr}`);
    const expected = command === "serve" ? "cueport [serve]" : `cueport ${command}`;
    // Every usage goes to stdout, the player's too (--help exits before any protocol).
    assert.ok(help.stdout.startsWith(`Usage: ${expected}`), `${command}: ${help.stdout}`);
    assert.equal(help.stderr, "", `${command} --help writes nothing to stderr`);
  }
});

Deno.test("cueport --version", async () => {
  const { code, stdout } = await cueport(["--version"]);
  assert.equal(code, 0);
  assert.match(stdout, /^cueport \d+\.\d+\.\d+ \(deno 2\.\d+\.\d+, [\w-]+\)\n$/);
});

Deno.test("cueport status asks the running service", async () => {
  const svc = await startTestService();
  try {
    const lines: string[] = [];
    const code = await runStatusCommand(["--data-dir", svc.dataDir], (l) => lines.push(l));
    assert.equal(code, 0, lines.join("\n"));
    assert.match(lines[0]!, /^Cueport \d+\.\d+\.\d+: ok, up \d+ s$/);
    assert.match(lines[1]!, /^Player: cueport-player \S+, ready$/);
    assert.match(
      lines[2]!,
      new RegExp(`^Ports: http ${svc.service.ports.http}, ws \\d+, osc \\d+`),
    );
    assert.equal(lines[3], "Clients: 0 WebSocket, 0 MCP, 0 OSC subscribed");
    assert.equal(lines[4], "Paired devices: 0; clients waiting for approval: 0");
    assert.equal(lines[5], `Data dir: ${svc.dataDir}`);
    // A port that is off says so (it said "null").
    assert.doesNotMatch(lines[2]!, /null/);
    assert.match(lines[2]!, /legacyHttp off/);
    // Found by --http-port alone, the data dir is not known: not the default one's name.
    const byPort: string[] = [];
    const port = String(svc.service.ports.http);
    await runStatusCommand(
      ["--http-port", port, "--data-dir", "/nonexistent"],
      (l) => byPort.push(l),
    );
    assert.equal(byPort[5], "Data dir: not known (give the service's --data-dir to see it)");
    const both: string[] = [];
    await runStatusCommand(["--http-port", port, "--data-dir", svc.dataDir], (l) => both.push(l));
    assert.equal(both[5], `Data dir: ${svc.dataDir}`);
    // A WebSocket session and an OSC subscriber are counted.
    const ws = new WebSocket(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    const osc = OscPeer.open(svc.service.ports.osc);
    assert.equal((await osc.ask("/subscribe", ["/control"])).status, "ok");
    await until("the session is counted", () => svc.service.sockets.clientCount === 1);
    const connected: string[] = [];
    await runStatusCommand(["--data-dir", svc.dataDir], (l) => connected.push(l));
    assert.equal(connected[3], "Clients: 1 WebSocket, 0 MCP, 1 OSC subscribed");
    const json: string[] = [];
    await runStatusCommand(["--data-dir", svc.dataDir, "--json"], (l) => json.push(l));
    ws.close();
    await osc.close();
    const report = JSON.parse(json[0]!);
    assert.equal(report.ready, true);
    assert.deepEqual(report.clients, { websocket: 1, mcp: 0, osc: 1, midi: 0 });
    assert.deepEqual(report.ports, svc.service.ports);
  } finally {
    await svc.stop();
  }
  const lines: string[] = [];
  const down = await runStatusCommand(
    ["--http-port", "1", "--data-dir", "/nonexistent"],
    (l) => lines.push(l),
  );
  assert.equal(down.valueOf(), 1);
  assert.match(lines[0]!, /Cannot reach Cueport on port 1/);
});

Deno.test("formatUptime()", () => {
  assert.deepEqual([3, 62, 3720, 90000].map(formatUptime), [
    "3 s",
    "1 min 2 s",
    "1 h 2 min",
    "1 d 1 h",
  ]);
});

Deno.test("service install --dry-run prints the unit and the commands, changes nothing", async () => {
  const lines: string[] = [];
  const code = await runServiceCommand(["install", "--user", "--dry-run"], (l) => lines.push(l));
  if (Deno.build.os !== "linux" && Deno.build.os !== "darwin") {
    assert.equal(code, 1);
    return;
  }
  // This checkout's own command: refused with one line where it could not run as a service.
  const problem = installProblem(selfCommand(), { isUser: true, standalone: false });
  assert.equal(code, problem ? 1 : 0);
  if (problem) assert.equal(lines.at(-1), `cueport service install would refuse: ${problem}`);
  const text = lines.join("\n");
  if (Deno.build.os === "linux") {
    assert.match(text, /write .*\/\.config\/systemd\/user\/cueport\.service:\n# Written by/);
    assert.match(text, /Type=notify/);
    assert.match(text, /systemctl --user enable --now cueport\.service/);
  }
});

Deno.test("service steps per platform: systemd on Linux, launchd on macOS", () => {
  const options = {
    isUser: false,
    command: ["/usr/local/bin/cueport"],
    home: "/h",
    runAs: "show",
    readPasswd: () => "root:x:0:0::/root:/bin/sh\ncueport-output:x:998:998::/nonexistent:/x\n",
  };
  const linux = serviceSteps("install", options, "linux");
  assert.deepEqual(linux.filter((s) => s.kind === "run").map((s) => s.command.join(" ")), [
    "systemctl daemon-reload",
    "systemctl enable --now cueport.service",
  ]);
  // The output browser's user is made when it is missing (a player run as root starts it so).
  const fresh = serviceSteps(
    "install",
    { ...options, readPasswd: () => "root:x:0:0::/:/x\n" },
    "linux",
  );
  assert.equal(
    fresh.find((s) => s.kind === "run")?.command.join(" "),
    "useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin " +
      "cueport-output",
  );
  const mac = serviceSteps("install", options, "darwin");
  const runs = mac.filter((s) => s.kind === "run").map((s) => s.command.join(" "));
  assert.ok(
    runs.includes("launchctl bootstrap system /Library/LaunchDaemons/dev.cueport.service.plist"),
  );
  assert.ok(runs.some((r) => r.startsWith("chown -R show ")));
  const removal = serviceSteps("uninstall", options, "linux");
  assert.deepEqual(removal.map((s) => s.kind), ["run", "remove", "run"]);
  assert.throws(() => serviceSteps("install", options, "windows"), /Linux .* macOS/);
});

Deno.test("log lines: text, or one JSON object a line", () => {
  const time = new Date("2026-01-02T03:04:05.000Z");
  assert.equal(formatLogLine("text", time, "warn", "x"), "2026-01-02T03:04:05.000Z WARN  x\n");
  assert.equal(
    formatLogLine("json", time, "error", 'a "b"\nc'),
    '{"time":"2026-01-02T03:04:05.000Z","level":"error","message":"a \\"b\\"\\nc"}\n',
  );
});

Deno.test("installProblem() refuses what the unit's sandbox hides or what may be gone, naming what to do", () => {
  const linux = { os: "linux" as const };
  const npxDeno = "/root/.npm/_npx/7a40be787520bede/node_modules/deno/deno";
  const source = [npxDeno, "run", "--allow-net", "--config", "/tmp/cueport/deno.json", "main.ts"];
  const system = installProblem(source, { isUser: false, standalone: false, ...linux });
  assert.match(
    system!,
    /^the service would run \/root\/\.npm\/_npx\/.*\/deno, which its sandbox hides \(ProtectHome=yes\): build the binary \(deno task compile\)/,
  );
  assert.match(
    installProblem(["/tmp/x/cueport"], { isUser: false, standalone: true, ...linux })!,
    /hides \(PrivateTmp=yes\)/,
  );
  assert.match(
    installProblem(["/usr/bin/deno", "run", "/opt/cueport/main.ts"], {
      isUser: false,
      standalone: false,
      ...linux,
    })!,
    /a system service cannot run a source checkout/,
  );
  assert.match(
    installProblem(["/usr/bin/deno", "run", "/tmp/cueport/main.ts"], {
      isUser: true,
      standalone: false,
      ...linux,
    })!,
    /in a temporary folder that may not survive a reboot/,
  );
  // A checkout's deno.json or main.ts is said as the checkout (it was "would run .../deno.json").
  assert.match(
    installProblem(["/usr/bin/deno", "run", "--config", "/tmp/ci/deno.json", "/tmp/ci/main.ts"], {
      isUser: true,
      standalone: false,
      ...linux,
    })!,
    /^the service would run the checkout in \/tmp\/ci, in a temporary folder that may not survive/,
  );
  assert.match(
    installProblem([npxDeno, "run", "/srv/cueport/main.ts"], {
      isUser: true,
      standalone: false,
      ...linux,
    })!,
    /in npx's cache, which npm may clear/,
  );
  // What runs: the installed binary, or a user unit of a checkout with an installed Deno.
  const ok = [
    installProblem(["/usr/local/bin/cueport"], { isUser: false, standalone: true, ...linux }),
    installProblem(["/usr/local/bin/deno", "run", "/home/me/cueport/main.ts"], {
      isUser: true,
      standalone: false,
      ...linux,
    }),
  ];
  assert.deepEqual(ok, [null, null]);
});

Deno.test("service status takes --data-dir and --http-port, as its own line about the data dir says", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-svc-status-" });
  try {
    const lines: string[] = [];
    const code = await runServiceCommand(
      ["status", "--data-dir", dataDir],
      (l) => lines.push(l),
    );
    const text = lines.join("\n");
    assert.doesNotMatch(text, /Unknown option/);
    assert.equal(code, 1, text);
    assert.match(text, new RegExp(`No Cueport service runs with the data dir "${dataDir}"`));
    // No unit here (no systemd, or none installed): said as one state, not "not installed, unknown".
    if (Deno.build.os === "linux") {
      assert.match(
        lines[0]!,
        /^cueport\.service: (not installed \(systemctl knows no such unit\)|\w)/,
      );
      assert.doesNotMatch(lines[0]!, /unknown$/);
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("service install and uninstall refuse --data-dir and --http-port (status only), changing nothing", async () => {
  for (const action of ["install", "uninstall"]) {
    const lines: string[] = [];
    const code = await runServiceCommand(
      [action, "--dry-run", "--data-dir", "/srv/show"],
      (l) => lines.push(l),
    );
    assert.equal(code, 2, lines.join("\n"));
    assert.match(lines[0]!, /^cueport service: --data-dir and --http-port are for status only/);
  }
});
