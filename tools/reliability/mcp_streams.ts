/**
 * Probe `mcp_streams`: MCP clients that do not read, and a device that
 * opens too many sessions. Four paired devices open 30 sessions, each
 * subscribed to the demo Project and its 253 Songs, and open their `GET`
 * streams without ever reading them, while 1,500 edits (short: 250) move a
 * Song: each edit owes every stream 254 notifications (about 30 KB).
 * Then the streams are read (each must have been closed by the service for
 * its budget), closed, and the service's memory must come back down. Last,
 * a view-only device opens 40 sessions: at most 8 may open, and the
 * operator's session (127.0.0.1) must keep working throughout, its calls
 * timed (`local p99`). What the service received: the session opens, subscriptions, edits
 * and the viewer's opens it answered.
 * @module
 */
import { countReceived, requireFigures } from "./_figures.ts";
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import { type McpCaller, mcpRequest, openSession, PausedStream } from "./_mcp.ts";
import { readMemory } from "./_proc.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";

/**
 * `settleMs`: after the streams close, how long memory may take to come back down. The service
 * frees what they held at once, but the process gives the pages back to the system later (measured:
 * 8 to 20 s after the last edit, without a garbage collection), so only a full run waits for it;
 * a short run notes what it saw.
 */
const LIMITS = {
  short: { edits: 250, drainMs: 8_000, settleMs: 6_000, isSettleTarget: false },
  full: { edits: 1_500, drainMs: 20_000, settleMs: 45_000, isSettleTarget: true },
};
const SESSIONS = 30;
/** Remote devices the 30 sessions come from (at most 8 sessions each). */
const DEVICES = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"];
const VIEWER = "127.0.0.6";
const VIEWER_SESSIONS = 40;
const PER_DEVICE = 8;
const SONGS_ADDED = 250;
/** After the streams close, the service may hold this much more than before they had work, MB. */
const SETTLED_MB = 16;
const LOCAL_EVERY_MS = 200;

/** The `mcp_streams` probe. */
export const mcpStreams: Probe = {
  name: "mcp_streams",
  summary:
    "30 MCP sessions whose GET streams never read during edits, then a view-only device opening 40 sessions; the operator's must keep working",
  figures: ["serviceRss", "playerRss", "localServed"],
  run,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rssMb(run: ServiceRun): Promise<number> {
  const kb = (await readMemory([run.service.pid])).get(run.service.pid)?.rss ?? 0;
  return Math.round(kb / 1024);
}

/** The operator: an MCP session on this machine, calling a tool every 200 ms, timed. */
class Operator {
  readonly ms: number[] = [];
  #caller: McpCaller;
  #session = "";
  #isRunning = true;
  #loop: Promise<void> = Promise.resolve();
  #tally: Tally;

  constructor(run: ServiceRun, tally: Tally) {
    this.#caller = { port: run.ports.http, localAddress: "127.0.0.1" };
    this.#tally = tally;
  }

  async start(): Promise<void> {
    const session = await openSession(this.#caller);
    if (typeof session !== "string") {
      throw new Error(`The operator's session was refused: ${JSON.stringify(session.body)}`);
    }
    this.#session = session;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#isRunning = false;
    await this.#loop;
  }

  async #run(): Promise<void> {
    for (let id = 1; this.#isRunning; id++) {
      const answer = await mcpRequest(this.#caller, {
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "app_get_playstate", arguments: {} },
      }, { sessionId: this.#session, withinMs: ANSWER_WITHIN_MS });
      this.#tally.served(answer.status === 200 && !(answer.body as { error?: unknown })?.error);
      if (answer.status === null) {
        this.#tally.hang(`the operator's MCP call: no answer in ${ANSWER_WITHIN_MS} ms`);
      } else if (answer.status !== 200 || (answer.body as { error?: unknown })?.error) {
        this.#tally.example(
          "operator",
          `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`,
        );
      } else this.ms.push(answer.ms);
      await sleep(LOCAL_EVERY_MS);
    }
  }
}

/** Counts the player's restarts: a new pid where there was one. */
class PlayerWatch {
  restarts = 0;
  #isRunning = true;
  #loop: Promise<void>;

  constructor(run: ServiceRun) {
    this.#loop = (async () => {
      let last = await run.playerPid();
      while (this.#isRunning) {
        await sleep(1000);
        const pid = await run.playerPid();
        if (pid !== null && last !== null && pid !== last) this.restarts++;
        if (pid !== null) last = pid;
      }
    })();
  }

  async stop(): Promise<void> {
    this.#isRunning = false;
    await this.#loop;
  }
}

/** The length of the `notifications/resources/updated` event of `uri` on a stream. */
function updatedEventBytes(uri: string): number {
  const data = { method: "notifications/resources/updated", params: { uri }, jsonrpc: "2.0" };
  return `event: message\ndata: ${JSON.stringify(data)}\n\n`.length;
}

function p99(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!);
}

/** Adds Songs to the demo Project (batches of 100) and returns every resource URI. */
async function resources(run: ServiceRun): Promise<{ uris: string[]; songs: string[] }> {
  const base = `http://127.0.0.1:${run.ports.http}`;
  for (let added = 0; added < SONGS_ADDED; added += 100) {
    const edits = Array.from(
      { length: Math.min(100, SONGS_ADDED - added) },
      (_, i) => ({ name: "song.add", params: { title: `Stream ${added + i}` } }),
    );
    const res = await fetch(`${base}/api/v1/edit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ edits }),
    });
    if (res.status !== 200) throw new Error(`Adding Songs: ${res.status} ${await res.text()}`);
    await res.body?.cancel();
  }
  const songs = ((await (await fetch(`${base}/api/v1/projects/demo/songs`)).json()).songs as Array<
    { songID: string }
  >).map((s) => s.songID);
  return {
    songs,
    uris: ["app://projects/demo", ...songs.map((id) => `app://projects/demo/songs/${id}`)],
  };
}

/** Pairs a device from `address` with `scopes`; its token. */
async function pair(run: ServiceRun, address: string, scopes: string[]): Promise<string> {
  const base = `http://127.0.0.1:${run.ports.http}`;
  const otp = (await (await fetch(`${base}/api/v1/pair/code`, { method: "POST" })).json()).otp;
  const client = Deno.createHttpClient({ localAddress: address } as Deno.CreateHttpClientOptions);
  try {
    const res = await fetch(`${base}/api/v1/pair`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ otp, deviceName: `Probe ${address}`, scopes }),
      client,
    });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`Pairing ${address}: ${JSON.stringify(body)}`);
    return body.token;
  } finally {
    client.close();
  }
}

/** A session whose stream never reads, subscribed to every resource. */
interface Reader {
  caller: McpCaller;
  session: string;
  stream: PausedStream;
}

async function openReaders(run: ServiceRun, tally: Tally, uris: string[]): Promise<Reader[]> {
  const callers: McpCaller[] = [];
  for (const address of DEVICES) {
    callers.push({
      port: run.ports.http,
      localAddress: address,
      token: await pair(run, address, ["view"]),
    });
  }
  const readers: Reader[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const caller = callers[i % callers.length]!;
    const session = await openSession(caller);
    tally.inputs++;
    if (typeof session !== "string") {
      throw new Error(
        `Session ${i} was refused: ${session.status} ${JSON.stringify(session.body)}`,
      );
    }
    countReceived(tally, 1);
    for (let at = 0; at < uris.length; at += 100) {
      const batch = uris.slice(at, at + 100).map((uri, k) => ({
        jsonrpc: "2.0",
        id: at + k + 1,
        method: "resources/subscribe",
        params: { uri },
      }));
      const answer = await mcpRequest(caller, batch, { sessionId: session });
      tally.inputs += batch.length;
      if (answer.status === 200) countReceived(tally, batch.length);
      if (answer.status !== 200) {
        throw new Error(`Subscribing: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
    }
    readers.push({ caller, session, stream: await PausedStream.open(caller, session) });
  }
  return readers;
}

/** Moves the first Song back and forth, one edit at a time, from this machine. */
async function edit(run: ServiceRun, tally: Tally, songs: string[], count: number): Promise<void> {
  const base = `http://127.0.0.1:${run.ports.http}`;
  for (let n = 0; n < count; n++) {
    tally.inputs++;
    try {
      const res = await fetch(`${base}/api/v1/edit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        // A move changes every Song's position: each subscribed Song is notified.
        body: JSON.stringify({
          name: "song.move",
          params: { songID: songs[0], position: n % 2 === 0 ? 1 : 0 },
        }),
        signal: AbortSignal.timeout(ANSWER_WITHIN_MS + 5000),
      });
      const body = await res.json();
      countReceived(tally, 1); // answered, whatever the status
      if (res.status !== 200) {
        tally.answer(res.status, body.error?.code ?? null, "POST /api/v1/edit");
        tally.example("edit", `${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      }
    } catch (error) {
      tally.hang(`POST /api/v1/edit: ${(error as Error).message}`);
    }
  }
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  requireFigures(tally, ["received"]);
  await withService(tally, {}, async (run) => {
    const players = new PlayerWatch(run);
    const operator = new Operator(run, tally);
    try {
      await operator.start();
      const { uris, songs } = await resources(run);
      const readers = await openReaders(run, tally, uris);
      const before = await rssMb(run);
      context.log(`mcp_streams: ${SESSIONS} streams open, not reading; ${limits.edits} edits`);
      await edit(run, tally, songs, limits.edits);
      const loaded = await rssMb(run);

      // What each stream got: the sockets' share, then the end (the service closed it), if read.
      for (const r of readers) r.stream.resume();
      const deadline = performance.now() + limits.drainMs;
      while (performance.now() < deadline && readers.some((r) => !r.stream.isEnded)) {
        await sleep(100);
      }
      const ended = readers.filter((r) => r.stream.isEnded).length;
      const received = readers.reduce((sum, r) => sum + r.stream.received, 0);
      const eventBytes = uris.reduce((sum, uri) => sum + updatedEventBytes(uri), 0);
      const owed = SESSIONS * limits.edits * eventBytes;
      tally.note(
        `${ended} of ${SESSIONS} streams closed by the service for not reading; read at last, they gave ${
          Math.round(received / 2 ** 20)
        } MB (what the sockets held) of about ${
          Math.round(owed / 2 ** 20)
        } MB of notifications owed`,
      );
      if (ended < SESSIONS) tally.shortfall(`${SESSIONS - ended} stream(s) not closed`);

      for (const r of readers) {
        r.stream.destroy();
        await mcpRequest(r.caller, undefined, { sessionId: r.session, method: "DELETE" });
      }
      const closedAt = performance.now();
      let after = await rssMb(run);
      while (after > before + SETTLED_MB && performance.now() - closedAt < limits.settleMs) {
        await sleep(1000);
        after = await rssMb(run);
      }
      const settled = Math.round((performance.now() - closedAt) / 1000);
      tally.note(
        `service RSS: ${before} MB with the streams open, ${loaded} MB after the edits, ${after} MB ${settled} s after the streams closed`,
      );
      if (after > before + SETTLED_MB && limits.isSettleTarget) {
        tally.shortfall(
          `RSS ${after} MB ${settled} s after the streams closed (target <= ${
            before + SETTLED_MB
          })`,
        );
      }

      await viewer(run, tally);
    } finally {
      await operator.stop();
      await players.stop();
    }
    tally.note(`player restarts: ${players.restarts}`);
    tally.note(`local p99: ${p99(operator.ms) ?? "-"} ms`);
  });
}

/** A view-only device opens 40 sessions: 8 open, the rest are refused (429). */
async function viewer(run: ServiceRun, tally: Tally): Promise<void> {
  const caller = {
    port: run.ports.http,
    localAddress: VIEWER,
    token: await pair(run, VIEWER, ["view"]),
  };
  const outcomes = new Map<string, number>();
  for (let i = 0; i < VIEWER_SESSIONS; i++) {
    const session = await openSession(caller);
    tally.inputs++;
    if (typeof session === "string" || session.status !== null) countReceived(tally, 1);
    const key = typeof session === "string" ? "opened" : `${session.status ?? "no answer"}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }
  const opened = outcomes.get("opened") ?? 0;
  tally.note(
    `view-only device, ${VIEWER_SESSIONS} sessions: ${
      [...outcomes].map(([k, n]) => `${n} ${k}`).join(", ")
    }`,
  );
  if (opened > PER_DEVICE) {
    tally.shortfall(`${opened} sessions of one device (target ${PER_DEVICE})`);
  }
  if ((outcomes.get("429") ?? 0) !== VIEWER_SESSIONS - opened) {
    tally.shortfall("a session over the bound not refused with 429");
  }
}
