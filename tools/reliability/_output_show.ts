/**
 * The show the output probes attack: a service with a headless output
 * (`--output headless`, as `deno task start --output headless` starts it),
 * the demo Project's looping Clip `clip-aurora` playing, and what they read
 * of it each half second: frames drawn (`/health` `output.framesDrawn`), the
 * browser's starts, and the Clip's position (the show's clock).
 * @module
 */
import { waitReady } from "./_edit_load.ts";
import { type ServiceRun, withService } from "./_harness.ts";
import { postAction } from "./_load_recording.ts";
import { restartLines } from "./load.ts";
import { framesDrawnOf, healthNow } from "./_load_sampler.ts";
import { findPeer } from "../peers.ts";
import type { Tally } from "./_tally.ts";
import { NotRun } from "./_types.ts";

/** The demo Clip the probes play: an 8 s picture that loops. */
export const PLAYING_CLIP = "clip-aurora";
const FIRST_FRAME_WITHIN_MS = 60_000;

/** Resolves after `ms` (the probes wait on the real clock: they watch a real service). */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `body` on a watched service with a headless output whose first frame is drawn and whose
 * `clip-aurora` plays. NOT RUN without Chromium.
 */
export async function withShow(
  tally: Tally,
  body: (run: ServiceRun) => Promise<void>,
  options: { args?: string[]; prepare?: (dataDir: string) => Promise<void> } = {},
): Promise<void> {
  if (findPeer("chromium") === undefined) {
    throw new NotRun("chromium not found (tools/peers.ts; Debian: apt-get install chromium)");
  }
  const args = ["--output", "headless", ...(options.args ?? [])];
  await withService(
    tally,
    { args, ...(options.prepare ? { prepare: options.prepare } : {}) },
    async (run) => {
      if (!(await waitReady(run))) throw new Error("The player was not ready within 30 s");
      if ((await framesWithin(run.ports.http, FIRST_FRAME_WITHIN_MS)) === null) {
        const why = restartLines(run.service.stderrTail().split("\n")).join(" / ");
        throw new Error(
          `No frame drawn within ${FIRST_FRAME_WITHIN_MS / 1000} s of ready${
            why ? ` (browser restarts: ${why})` : ""
          }`,
        );
      }
      const play = await postAction(run.ports.http, "PLAY_CLIP_IN", [PLAYING_CLIP]);
      if (play.status !== 200) throw new Error(`PLAY_CLIP_IN answered ${play.status}`);
      await body(run);
    },
  );
}

/** `output.framesDrawn` once it is above 0, or null when it is not within `ms`. */
export async function framesWithin(port: number, ms: number): Promise<number | null> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    const frames = framesDrawnOf(await healthNow(port));
    if (frames !== null && frames > 0) return frames;
    await sleep(500);
  }
  return null;
}

/** Whether `output.framesDrawn` grows within `ms` (the output draws). */
export async function framesGrowWithin(port: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  const first = framesDrawnOf(await healthNow(port));
  while (performance.now() < deadline) {
    await sleep(500);
    const now = framesDrawnOf(await healthNow(port));
    if (now !== null && (first === null || now > first)) return true;
  }
  return false;
}

/** `/health`'s `output.browserStarts`, or null. */
export async function browserStarts(port: number): Promise<number | null> {
  const output = (await healthNow(port) as { output?: { browserStarts?: unknown } } | null)?.output;
  return typeof output?.browserStarts === "number" ? output.browserStarts : null;
}

/** `/health`'s `playerRestarts`, or null. */
export async function playerRestarts(port: number): Promise<number | null> {
  const health = await healthNow(port) as { playerRestarts?: unknown } | null;
  return typeof health?.playerRestarts === "number" ? health.playerRestarts : null;
}

/** The playing Clip's state and position from the play state, or null when not answered. */
export async function clipNow(
  port: number,
  clipId = PLAYING_CLIP,
): Promise<{ state: string; position: number | null } | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/projects/demo/playstate`, {
      signal: AbortSignal.timeout(5000),
    });
    const body = await res.json();
    const clip = (body.clips as { clipID: string; state: string; position: number | null }[])
      .find((c) => c.clipID === clipId);
    return clip
      ? { state: clip.state, position: clip.position }
      : { state: "stopped", position: null };
  } catch {
    return null;
  }
}

/** What a `ShowWatch` saw. */
export interface ShowSeen {
  /** The longest time without a new frame drawn, ms. */
  longestFreezeMs: number;
  /** Whether the frames grew over the last samples (the output draws at the end). */
  isDrawingAtEnd: boolean;
  /** Samples where the Clip was not playing or its position had not moved since the last. */
  clockStops: number;
  samples: number;
}

/**
 * Reads `/health` and the play state every half second until stopped: how long the output
 * drew nothing at most, and whether the playing Clip's position kept moving (the clock).
 */
export class ShowWatch {
  #frames: { at: number; frames: number | null }[] = [];
  #clockStops = 0;
  #isRunning = true;
  #loop: Promise<void>;

  /** Starts watching the service at `port`. */
  constructor(port: number, clipId = PLAYING_CLIP) {
    this.#loop = (async () => {
      let lastPosition: number | null = null;
      while (this.#isRunning) {
        const started = performance.now();
        const [health, clip] = await Promise.all([healthNow(port), clipNow(port, clipId)]);
        this.#frames.push({ at: performance.now(), frames: framesDrawnOf(health) });
        const position = clip?.state === "playing" ? clip.position : null;
        if (position === null || position === lastPosition) this.#clockStops++;
        lastPosition = position;
        const wait = 500 - (performance.now() - started);
        if (wait > 0 && this.#isRunning) await sleep(wait);
      }
    })();
  }

  /** Stops; what was seen. */
  async stop(): Promise<ShowSeen> {
    this.#isRunning = false;
    await this.#loop;
    let longest = 0;
    let since = this.#frames[0]?.at ?? 0;
    let last = this.#frames[0]?.frames ?? null;
    for (const s of this.#frames) {
      if (s.frames !== null && last !== null && s.frames > last) since = s.at;
      longest = Math.max(longest, s.at - since);
      if (s.frames !== null) last = s.frames;
    }
    const tail = this.#frames.slice(-4).map((s) => s.frames).filter((f) => f !== null);
    return {
      longestFreezeMs: Math.round(longest),
      isDrawingAtEnd: tail.length >= 2 && tail[tail.length - 1]! > tail[0]!,
      clockStops: this.#clockStops,
      samples: this.#frames.length,
    };
  }
}
