/**
 * A slow player over HTTP: the real service, its bundled player in this
 * process (answering heartbeats), an answer to an edit held back by the test
 * while the supervisor's clock runs on, as a player on a starved machine.
 */
import assert from "node:assert/strict";
import type { RpcMessage } from "../../protocol/jsonrpc.ts";
import type { Transport } from "../../protocol/transport.ts";
import { createLogger } from "../../server/log.ts";
import type { LaunchedPlayer } from "../../server/player_client/mod.ts";
import { type RunningService, startService, VERSION } from "../../server/service.ts";
import { InstanceLock } from "../../server/startup.ts";
import { fixtureDataDir } from "../../tools/testing/fixture.ts";
import { type InProcessLauncher, inProcessLauncher } from "../../tools/testing/in_process.ts";
import { testSettings } from "../../tools/testing/service.ts";
import { until } from "../../tools/testing/until.ts";
import { ManualClock } from "./player_client/_stand_in.ts";

/** Holds the player's answers to `edit.apply` until the test lets them through. */
class EditGate {
  held: RpcMessage[] = [];
  /** Lets every answer through from now on. */
  isOpen = false;
  #editIds = new Set<unknown>();
  #deliver: ((message: RpcMessage) => void) | null = null;

  /** The player's end of the pipe as the service sees it, with edit answers held here. */
  wrap(inner: Transport): Transport {
    const outer: Transport = {
      send: (message) => outer.sendMany([message]),
      sendMany: (messages) => {
        for (const m of messages) {
          const request = m as { method?: string; id?: unknown };
          if (request.method === "edit.apply") this.#editIds.add(request.id);
        }
        return inner.sendMany(messages);
      },
      start: () => inner.start(),
      close: () => inner.close(),
    };
    inner.onmessage = (message) => {
      if (!this.isOpen && "id" in message && this.#editIds.has(message.id)) {
        this.held.push(message);
      } else outer.onmessage?.(message);
    };
    inner.onclose = () => outer.onclose?.();
    this.#deliver = (message) => outer.onmessage?.(message);
    return outer;
  }

  /** Lets the held answers through, in order. */
  release(): void {
    for (const message of this.held.splice(0)) this.#deliver?.(message);
  }
}

async function slowService() {
  const dataDir = await fixtureDataDir();
  const settings = testSettings(dataDir);
  const clock = new ManualClock();
  const gate = new EditGate();
  const players: InProcessLauncher = inProcessLauncher(dataDir);
  const launcher = {
    async launch(): Promise<LaunchedPlayer> {
      const launched = await players.launch();
      return { ...launched, transport: gate.wrap(launched.transport) };
    },
  };
  const lines: string[] = [];
  const quiet = createLogger("error");
  const log = (level: Parameters<typeof quiet>[0], message: string) => {
    lines.push(`${level} ${message}`);
    quiet(level, message);
  };
  const lock = await InstanceLock.acquire(dataDir, VERSION);
  const service: RunningService = await startService(settings, log, {
    lock,
    launcher,
    playerClock: clock,
  });
  assert.ok(await service.supervisor.waitReady(120_000));
  const base = `http://127.0.0.1:${service.ports.http}`;
  const post = async (path: string, body: unknown, key: string) => {
    const res = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const songs = async () =>
    (await (await fetch(`${base}/api/v1/projects/show/songs`)).json()).songs.length as number;
  /** Runs the supervisor's clock on by `ms`, each heartbeat answered before the next tick. */
  const runFor = (ms: number) =>
    clock.advance(ms, () => {
      const before = service.supervisor.heartbeats;
      return until("a heartbeat answer", () => service.supervisor.heartbeats > before);
    });
  const stop = async () => {
    await service.shutdown();
    await Deno.remove(dataDir, { recursive: true });
  };
  return { service, gate, players, lines, post, songs, runFor, stop, base };
}

const add = { name: "song.add", params: { title: "Encore" }, projectID: "show" };

Deno.test("an edit the player answers a minute late is answered once with its real result, and a retry meanwhile gets the same answer", async () => {
  const t = await slowService();
  try {
    const count = await t.songs();
    const first = t.post("/api/v1/edit", add, "slow-1");
    await until("the player's answer, held", () => t.gate.held.length === 1);
    // Twelve times the old 5 s deadline; the player answers every heartbeat meanwhile.
    await t.runFor(60_000);
    const retry = t.post("/api/v1/edit", add, "slow-1");
    await t.runFor(5_000);
    t.gate.release();
    const [a, b] = await Promise.all([first, retry]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.ok, true);
    assert.deepEqual(b, a, "the retry while it was pending got the first answer");
    assert.equal(await t.songs(), count + 1, "applied once");
    assert.equal(t.service.supervisor.restarts, 0);
    assert.deepEqual(t.lines.filter((l) => /hung|TIMEOUT/.test(l)), []);
    assert.ok(
      t.lines.some((l) => /Player slow but working: edit\.apply answered after 6\d\.\d s/.test(l)),
      t.lines.join("\n"),
    );
    const health = await (await fetch(`${t.base}/health`)).json();
    assert.equal(health.playerRestarts, 0);
    assert.equal(health.output, null, "no output runs in this test");
  } finally {
    await t.stop();
  }
});

Deno.test("an edit whose player dies before answering is answered 503 outcome unknown, and its retry gets the first result", async () => {
  const t = await slowService();
  try {
    const count = await t.songs();
    const first = t.post("/api/v1/edit", add, "crash-1");
    await until("the player's answer, held", () => t.gate.held.length === 1);
    const applied = t.gate.held[0] as { result: unknown };
    await t.players.crash(); // applied and written, then gone before its answer got out
    t.gate.isOpen = true;
    const unknown = await first;
    assert.equal(unknown.status, 503);
    assert.equal(unknown.body.error.code, "NOT_READY");
    assert.match(unknown.body.error.message, /whether it was done is unknown/);
    assert.match(unknown.body.error.message, /same Idempotency-Key/);
    assert.ok(await t.service.supervisor.waitReady(120_000));
    const retry = await t.post("/api/v1/edit", add, "crash-1");
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.deepEqual({ ...retry.body, ok: undefined }, {
      ...applied.result as object,
      ok: undefined,
    });
    assert.equal(await t.songs(), count + 1, "applied once, across the crash");
    const health = await (await fetch(`${t.base}/health`)).json();
    assert.equal(health.playerRestarts, 1);
  } finally {
    await t.stop();
  }
});
