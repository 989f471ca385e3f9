import assert from "node:assert/strict";
import { startServiceProcess } from "../tools/testing/service_process.ts";
import { needs } from "../tools/testing/peers.ts";
import { untilProgress } from "../tools/testing/until.ts";

/** The bundled player: the service's live child whose command line carries the word "player". */
async function playerPid(servicePid: number): Promise<number | null> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "pid=,stat=,args=", "--ppid", String(servicePid)],
  })
    .output();
  const line = new TextDecoder().decode(out.stdout).split("\n")
    .find((l) => /\splayer(\s|$)/.test(l) && !/^\s*\d+\s+Z/.test(l));
  return line ? Number(line.trim().split(/\s+/)[0]) : null;
}

Deno.test({
  name: "main.ts serve prints the ready line, serves /health and stops cleanly on SIGTERM",
  ignore: Deno.build.os === "windows" || needs("ps").ignore,
  async fn() {
    const svc = await startServiceProcess();
    try {
      assert.equal(svc.ready.event, "ready");
      // The ready line waits at most 15 s for the player (a first start on a busy machine takes
      // longer) and says which; the helper then waited for /health to say the player is ready.
      if (!svc.ready.playerReady) assert.match(svc.stderr(), /Player not ready after 15 s/);
      // Every port is bound; network MIDI is off in test services (`--midi-port off`): null.
      const { midi, ...bound } = svc.ready.ports;
      for (const port of Object.values(bound)) assert.ok(port > 0);
      assert.equal(midi, null);
      const health = await svc.get("/health");
      assert.equal(health.status, 200);
      assert.equal(health.body.ready, true);
      const missing = await svc.get("/nope");
      assert.deepEqual(missing, {
        status: 404,
        body: { error: { code: "NOT_FOUND", message: "No route for GET /nope" } },
      });
      // the demo project was created on first start, with measured media
      const project = JSON.parse(
        await Deno.readTextFile(`${svc.dataDir}/projects/demo/project.json`),
      );
      assert.equal(project.songs.length, 3);
    } finally {
      assert.equal(await svc.stop(), 0);
    }
    assert.match(svc.stderr(), /SIGTERM: shutting down/);
    assert.match(svc.stderr(), /Stopped/);
  },
});

Deno.test({
  name: "killing the player: the service stays up and a new player is back",
  ignore: Deno.build.os === "windows" || needs("ps").ignore,
  async fn() {
    const svc = await startServiceProcess();
    try {
      const first = await playerPid(svc.ready.pid);
      assert.ok(first, "the player runs as a child of the service");
      Deno.kill(first, "SIGKILL");
      // The service's own word that a player is back: its log line "Player ready: ... (pid N)"
      // of a new pid. Waited for while its log moves (a slow restart on a loaded machine), so it
      // fails only when the service is stuck: nothing logged for a minute.
      const readyPids = () =>
        [...svc.stderr().matchAll(/Player ready: .*\(pid (\d+)\)/g)].map((m) => Number(m[1]));
      await untilProgress("the service's line that a new player is ready", () => {
        return readyPids().some((pid) => pid !== first);
      }, { progress: () => svc.stderr().length });
      const back = readyPids().at(-1)!;
      assert.match(svc.stderr(), /Player down/, "the outage was noticed");
      const health = await svc.get("/health");
      assert.equal(health.status, 200, "the service itself stayed up");
      assert.equal(health.body.ready, true);
      assert.equal(await playerPid(svc.ready.pid), back, "the player it named runs");
      assert.notEqual(await playerPid(svc.ready.pid), first);
    } finally {
      assert.equal(await svc.stop(), 0);
    }
  },
});

Deno.test("main.ts --help prints usage; a bad flag exits 2 and names it", async () => {
  const main = new URL("../main.ts", import.meta.url).pathname;
  const help = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", main, "--help"] })
    .output();
  assert.equal(help.code, 0);
  assert.match(new TextDecoder().decode(help.stdout), /--data-dir DIR/);
  const bad = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "--http-port", "99999"],
    stderr: "piped",
  }).output();
  assert.equal(bad.code, 2);
  assert.match(new TextDecoder().decode(bad.stderr), /Invalid setting httpPort/);
});
