/**
 * The bench's collector of one output page's drawn frames (`_rigs_frames.ts` starts it in a rig's
 * network namespace): bench-only, nothing of it ships. The rig's browser was started through
 * `_vsync_browser.ts`'s wrapper, which adds a DevTools port (`--remote-debugging-port`) beside the
 * player's pipe; this process reaches the output page there and wraps two methods of the page's
 * own modules (a module is one instance per address: the page calls the wrapped methods), so that
 * each drawn frame records when it was drawn (`performance.timeOrigin` plus its frame time: the
 * machine's clock, which every rig's page of the bench shares), the drawn clock (what
 * `FrameTime.next` returned: the player's clock, whose base is the player's own) and what the
 * frame shows of one Clip: its position at that clock. Every 500 ms it writes the frames recorded
 * since as one JSON line on stdout, `{"skewMs", "frames": [[at, position, clock, frameMs], ...]}`
 * (ms), `skewMs` being the page's `Date.now()` minus its `performance.timeOrigin +
 * performance.now()` then (a check of that time base against the machine's clock, to 1 ms). A
 * page made anew (the player restarts it) is wrapped again.
 * `deno run --allow-net _vsync_collector.ts <port> <clipId>`; it ends with its stdin.
 * @module
 */

/** The page's global the wrapped methods push each frame's `at, position, clock, frameMs` onto. */
const KEY = "__cueportBenchFrames";

/**
 * Run in the page: wraps, once per document, `FrameTime.prototype.next` (the drawn clock of a
 * frame, and when) and `Layers.prototype.sync` (called next in the same frame with that clock and
 * the state's layers): pushes `at, position, clock, frameMs` of each drawn frame, `position` (ms)
 * being Clip `clipId`'s at the drawn clock (`positionOf`: what the frame shows of it). True once
 * wrapped; false before the page loaded its modules.
 */
const wrap = (clipId: string) =>
  `(async () => {
  if (globalThis.${KEY}) return true;
  const url = (file) => performance.getEntriesByType("resource")
    .find((e) => e.name.endsWith("/" + file))?.name;
  if (!url("frame_time.js") || !url("layers.js") || !url("clock.js")) return false;
  const { FrameTime } = await import(url("frame_time.js"));
  const { Layers } = await import(url("layers.js"));
  const { positionOf } = await import(url("clock.js"));
  const next = FrameTime.prototype.next, sync = Layers.prototype.sync;
  const frames = globalThis.${KEY} = [];
  let drawn = null;
  FrameTime.prototype.next = function (t, target, frameMs) {
    const clock = next.call(this, t, target, frameMs);
    drawn = [performance.timeOrigin + t, clock, frameMs];
    return clock;
  };
  Layers.prototype.sync = function (layers, clock, frameSeconds) {
    const layer = layers.find((l) => l.clipId === ${JSON.stringify(clipId)});
    if (drawn && drawn[1] === clock && layer) {
      frames.push(drawn[0], positionOf(layer, clock) * 1000, clock, drawn[2]);
    }
    drawn = null;
    return sync.call(this, layers, clock, frameSeconds);
  };
  return true;
})()`;

/** Run in the page: the frames recorded since the last call (null: not wrapped). */
const DRAIN = `globalThis.${KEY}
  ? [Date.now() - (performance.timeOrigin + performance.now()), globalThis.${KEY}.splice(0)]
  : null`;

/** A DevTools connection to one page over its WebSocket. */
class PageSession {
  readonly #socket: WebSocket;
  readonly #waiting = new Map<number, (result: unknown) => void>();
  #next = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data));
      this.#waiting.get(message.id)?.(message.result?.result?.value ?? null);
      this.#waiting.delete(message.id);
    };
    // The page gone (closed, or the browser restarted): every question is answered null.
    socket.onclose = () => {
      for (const resolve of this.#waiting.values()) resolve(null);
      this.#waiting.clear();
    };
  }

  /** Opens a session to the page at DevTools address `url`. */
  static open(url: string): Promise<PageSession> {
    const socket = new WebSocket(url);
    return new Promise((resolve, reject) => {
      socket.onopen = () => resolve(new PageSession(socket));
      socket.onerror = () => reject(new Error(`no DevTools session at ${url}`));
    });
  }

  /** Evaluates `expression` in the page (awaiting a promise): its value, null on failure. */
  evaluate(expression: string): Promise<unknown> {
    if (this.#socket.readyState !== WebSocket.OPEN) return Promise.resolve(null);
    const id = this.#next++;
    const answered = new Promise((resolve) => this.#waiting.set(id, resolve));
    const params = { expression, awaitPromise: true, returnByValue: true };
    this.#socket.send(JSON.stringify({ id, method: "Runtime.evaluate", params }));
    return answered;
  }

  close(): void {
    this.#socket.close();
  }
}

/** The DevTools address of the output page (served over http by the player), or null. */
async function outputPage(port: number): Promise<string | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/json/list`);
    const targets = await response.json() as { type: string; url: string; id: string }[];
    const page = targets.find((t) => t.type === "page" && t.url.startsWith("http"));
    return page ? `ws://127.0.0.1:${port}/devtools/page/${page.id}` : null;
  } catch {
    return null; // the browser is not up yet
  }
}

/** Wraps the page and writes its frames every 500 ms, until stdin ends. */
async function collect(port: number, clipId: string): Promise<void> {
  let isDone = false;
  void Deno.stdin.readable.pipeTo(new WritableStream()).finally(() => isDone = true);
  let session: PageSession | null = null;
  const out = new TextEncoder();
  while (!isDone) {
    await new Promise((r) => setTimeout(r, 500));
    if (session === null) {
      const url = await outputPage(port);
      session = url === null ? null : await PageSession.open(url).catch(() => null);
      if (session === null) continue;
    }
    const drained = await session.evaluate(DRAIN) as [number, number[]] | null;
    if (drained === null) {
      if (await session.evaluate(wrap(clipId)) !== true) session = reopen(session);
      continue;
    }
    const [skewMs, frames] = drained;
    const rows = [];
    for (let i = 0; i + 3 < frames.length; i += 4) rows.push(frames.slice(i, i + 4));
    await Deno.stdout.write(out.encode(`${JSON.stringify({ skewMs, frames: rows })}\n`));
  }
  session?.close();
}

/** Closes `session` so that the next round finds the page again (it may be a new one). */
function reopen(session: PageSession): null {
  session.close();
  return null;
}

if (import.meta.main) await collect(Number(Deno.args[0]), Deno.args[1]!);
