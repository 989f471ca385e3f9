import assert from "node:assert/strict";
import { TOOL_NAMES } from "../../../server/mcp/tools.ts";
import type { Project } from "../../../protocol/model.ts";
import { boundEventStream, NotReadingError } from "../../../server/mcp/event_stream.ts";
import { fixtureProject } from "../../../tools/testing/fixture.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { openRawSession, type RawSession, RawStream } from "./_raw.ts";

/** An SDK-like source: the test enqueues into it whether or not anyone reads. */
function source() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled: unknown = null;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel(reason) {
      cancelled = reason ?? "cancelled";
    },
  });
  return { stream, controller, cancelled: () => cancelled };
}

/** A grace timer the test fires itself: no grace passes until it says so. */
class ManualTimers {
  #pending = new Map<number, () => void>();
  #next = 1;
  set = (fn: () => void, _ms: number): unknown => {
    this.#pending.set(this.#next, fn);
    return this.#next++;
  };
  clear = (timer: unknown): void => void this.#pending.delete(timer as number);
  get pending(): number {
    return this.#pending.size;
  }
  /** Fires every timer set and not cleared. */
  fire(): void {
    const due = [...this.#pending.values()];
    this.#pending.clear();
    for (const fn of due) fn();
  }
}

Deno.test("boundEventStream() ends a stream whose unsent bytes pass the budget, and cancels its source", async () => {
  const sdk = source();
  let over = 0;
  let ended = 0;
  const bounded = boundEventStream(sdk.stream, {
    maxBufferedBytes: 1000,
    onOverflow: (bytes) => (over = bytes),
    onEnd: () => ended++,
  });
  for (let i = 0; i < 20; i++) sdk.controller.enqueue(new Uint8Array(100));
  await until("the budget to end the stream", () => ended === 1);
  assert.equal(over, 1100);
  assert.match(String(sdk.cancelled()), /its client does not read/, "the SDK stops writing to it");
  assert.equal(ended, 1);
  assert.equal(bounded.isOpen, false);
  assert.equal(bounded.push(new Uint8Array(1)), false);
  // What it held is gone: a reader that comes now gets the error, not 1,000 old bytes.
  await assert.rejects(() => bounded.readable.getReader().read(), NotReadingError);
});

Deno.test("boundEventStream() passes what a reading client takes, pushed or from its source, and one message larger than the budget", async () => {
  const sdk = source();
  const bounded = boundEventStream(sdk.stream, { maxBufferedBytes: 1000 });
  const reader = bounded.readable.getReader();
  let received = 0;
  for (let i = 0; i < 50; i++) {
    if (i % 2 === 0) sdk.controller.enqueue(new Uint8Array(400));
    else assert.equal(bounded.push(new Uint8Array(400)), true);
    received += (await reader.read()).value!.byteLength;
  }
  assert.equal(bounded.push(new Uint8Array(5000)), true);
  received += (await reader.read()).value!.byteLength;
  assert.equal(received, 50 * 400 + 5000);
  assert.equal(bounded.unsent, 0);
  assert.equal(sdk.cancelled(), null);
  sdk.controller.close();
  assert.equal((await reader.read()).done, true);
});

Deno.test("boundEventStream() drops what an ended stream holds once its client had closeGraceMs to take it", async () => {
  // In time: a client that reads within the grace gets every byte and the end.
  const quick = source();
  const quickTimers = new ManualTimers();
  const kept = boundEventStream(quick.stream, { maxBufferedBytes: 1000, timers: quickTimers });
  quick.controller.enqueue(new Uint8Array(600));
  quick.controller.close();
  await until("the source's end to start the grace", () => quickTimers.pending === 1);
  const reader = kept.readable.getReader();
  assert.equal((await reader.read()).value!.byteLength, 600);
  assert.equal((await reader.read()).done, true);
  assert.equal(quickTimers.pending, 0, "taken in time: the grace is cancelled");
  // Too late: the bytes are dropped (the session ended, its client never read).
  const slow = source();
  const slowTimers = new ManualTimers();
  let ended = 0;
  const dropped = boundEventStream(slow.stream, {
    maxBufferedBytes: 1000,
    onEnd: () => ended++,
    timers: slowTimers,
  });
  slow.controller.enqueue(new Uint8Array(600));
  slow.controller.close();
  await until("the source's end to start the grace", () => slowTimers.pending === 1);
  assert.equal(ended, 0, "held through the grace");
  assert.equal(dropped.unsent, 600);
  slowTimers.fire();
  assert.equal(ended, 1);
  assert.equal(dropped.unsent, 0);
  await assert.rejects(() => dropped.readable.getReader().read(), /ended session/);
});

Deno.test("boundEventStream() drop() ends a stream at once (the service stops)", async () => {
  const sdk = source();
  const bounded = boundEventStream(sdk.stream, { maxBufferedBytes: 1000 });
  bounded.push(new Uint8Array(10));
  bounded.drop();
  await until("the source to be cancelled", () => sdk.cancelled() !== null);
  assert.equal((await bounded.readable.getReader().read()).done, true);
});

/** The longest ids there are (64 characters): a notification of a Song is about 230 bytes. */
const PROJECT = "p".repeat(64);
const SONGS = Array.from({ length: 255 }, (_, i) => `${i}-`.padEnd(64, "s"));

/** A Project of 255 Songs: subscribed to all, one edit sends 256 notifications (59 KB). */
function bigProject(): Project {
  const fixture = fixtureProject();
  return {
    ...fixture,
    id: PROJECT,
    name: "Big",
    songs: SONGS.map((id, i) => ({
      ...fixture.songs[2]!,
      id,
      title: `B${i}`,
      pgmId: String(100 + i),
      clips: [],
    })),
    backgroundClips: [],
  };
}

async function subscribeAll(session: RawSession): Promise<void> {
  const uris = [
    `app://projects/${PROJECT}`,
    ...SONGS.map((id) => `app://projects/${PROJECT}/songs/${id}`),
  ];
  for (const [i, uri] of uris.entries()) {
    const answer = await session.request({
      jsonrpc: "2.0",
      id: 100 + i,
      method: "resources/subscribe",
      params: { uri },
    });
    assert.deepEqual(answer.body.result, {}, JSON.stringify(answer.body));
  }
}

/** Moves a Song: every Song's position changes, so every Song resource is notified. */
async function edit(svc: TestService, n: number): Promise<void> {
  const answer = await svc.post("/api/v1/edit", {
    projectID: PROJECT,
    name: "song.move",
    params: { songID: SONGS[0], position: n % 2 === 0 ? 1 : 0 },
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

Deno.test("MCP GET stream that does not read is closed past its budget; the session goes on", async () => {
  const svc = await startTestService({}, { projects: [bigProject()] });
  const streams: RawStream[] = [];
  try {
    const session = await openRawSession(svc.base);
    await subscribeAll(session);
    streams.push(await RawStream.open(svc.base, session.id));
    // About 12 MB of notifications: past the socket buffers (a loopback socket's grows to 4 MB),
    // the HTTP engine's and the 1 MiB budget.
    const edits = 200;
    for (let i = 0; i < edits; i++) await edit(svc, i);
    const sent = edits * 256 * 230;
    streams[0]!.resume();
    await until("the end of the stream that did not read", () => streams[0]!.isAnswered, 20_000);
    assert.match(streams[0]!.head, /^HTTP\/1\.1 200/);
    assert.ok(streams[0]!.received < sent * 0.8, `${streams[0]!.received} bytes of ${sent}`);
    // The session still answers, and its client may open its stream again.
    const list = await session.request({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    assert.equal(list.body.result.tools.length, TOOL_NAMES.length);
    streams.push(await RawStream.open(svc.base, session.id));
    streams[1]!.resume();
    await until("the new stream's answer", () => /\r\n\r\n/.test(streams[1]!.head));
    assert.match(streams[1]!.head, /^HTTP\/1\.1 200/);
    await edit(svc, 1000);
    await until(
      "a notification on the new stream",
      () => /resources\/updated/.test(streams[1]!.head),
    );
  } finally {
    for (const s of streams) s.destroy();
    await svc.stop();
  }
});
