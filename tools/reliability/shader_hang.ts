/**
 * Probe `shader_hang` (issue 40): a paired device (127.0.0.2) adds an Effect
 * preset whose shader loops forever, then one that loops 10^7 times, each put
 * on the playing Clip over HTTP. For each: the output must draw again
 * (`/health` `output.framesDrawn` grows at the end), the preset must be
 * quarantined (`preset.quarantine` non-null), and the show's clock must never
 * stop (the playing Clip's position moves at every half-second sample). The
 * watch ends on the outcome, not after a fixed time: quarantined and drawing
 * (at least 8 s after the edit; 20 s when nothing is quarantined), or nothing
 * new (no quarantine, no browser start, no frame) for 60 s while the browser
 * used 24 s of CPU (a starved browser is waited for, up to 300 s:
 * `SettleWatch`). The output must draw again within 10 s of the machine's
 * CPU: in its longest span without a new frame the browser had (used, or
 * could have used: the machine's idle time) under 10 s of CPU a core
 * (`DRAWS_AGAIN_WITHIN_MS`); a busy machine stretches a browser's restart in
 * wall-clock time, which is a figure (slow is not dead). A
 * preset refused at the edit (`INVALID_SHADER`: a loop without a constant
 * bound) is noted, not missed; a shader whose frames never stopped for 3 s
 * needs no quarantine (its loop's bound held). An
 * output still frozen after the Effect is taken off is said, and the next
 * shader gets a freshly started service.
 * @module
 */
import type { ServiceRun } from "./_harness.ts";
import {
  browserStarts,
  framesGrowWithin,
  framesWithin,
  PLAYING_CLIP,
  type ShowSeen,
  ShowWatch,
  sleep,
  withShow,
} from "./_output_show.ts";
import { postAction } from "./_load_recording.ts";
import { framesDrawnOf, healthNow } from "./_load_sampler.ts";
import { waitReady } from "./_edit_load.ts";
import { DescendantsCpu, machineIdleMs } from "./_cpu_time.ts";
import { answerWords, RemoteDevice } from "./_remote_device.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import type { Tally } from "./_tally.ts";

const HEADER = '/*{"INPUTS":[{"NAME":"inputImage","TYPE":"image"}]}*/';

/** The shaders: one that never ends (its loop's test always holds), one of 10^7 iterations. */
export const HANG_SHADERS: readonly { name: string; code: string }[] = [
  {
    name: "endless loop",
    code: `${HEADER}
void main() {
  float x = TIME;
  while (x >= 0.0) { x += 1.0; }
  gl_FragColor = IMG_THIS_PIXEL(inputImage) + vec4(x);
}
`,
  },
  {
    name: "10^7 iterations",
    code: `${HEADER}
void main() {
  float x = TIME;
  for (int i = 0; i < 10000000; i++) { x = fract(x * 1.0001 + 0.5); }
  gl_FragColor = IMG_THIS_PIXEL(inputImage) * x;
}
`,
  },
];

/** How long a shader that is not quarantined is watched once on the Clip (its frames never stopped). */
export const WATCH_MS = 20_000;
/** The watch gives up after this long without progress (a quarantine, a browser start, a frame)... */
export const NO_PROGRESS_MS = 60_000;
/**
 * ...once the browser also used this much CPU since (four times the 6 s of CPU on 2 cores its
 * player judges a stall by, `player/output/quarantine_watch.ts`): beside `stress-ng` a starved
 * browser took over 60 s to use those 6 s.
 */
export const NO_PROGRESS_CPU_MS = 24_000;
/** The watch gives up after this long without progress however little the browser could work. */
export const NO_PROGRESS_CEILING_MS = 300_000;
/** The watch may end early (quarantined, drawing again) from this long after the edit. */
export const SETTLED_AFTER_MS = 8000;
/**
 * The output draws again within this on this machine: within the CPU time the cores it may run
 * on give in it (`frozenCpuLimitMs`: `navigator.hardwareConcurrency`, the cores its player judges
 * a stall by, `player/output/quarantine.ts`), counted as the CPU the browser had while it drew
 * nothing: what it used, and what those cores left idle. On a quiet machine that is the cores'
 * whole time, as a wall-clock limit would be; beside other work it is what the browser got, which
 * a busy machine stretches in wall-clock time but not in CPU. As with the player's own stall
 * watch, a browser that keeps fewer cores busy than there are is judged the more leniently the
 * more of the others other work takes (one of two: up to twice the span). The span in
 * wall-clock time is a figure.
 */
export const DRAWS_AGAIN_WITHIN_MS = 10_000;

/** The target of `DRAWS_AGAIN_WITHIN_MS` in the browser's CPU time, ms: that long on every core. */
export function frozenCpuLimitMs(cores = navigator.hardwareConcurrency): number {
  return DRAWS_AGAIN_WITHIN_MS * cores;
}

/**
 * A span without a new frame this long is the output stopped: the preset must then be
 * quarantined. Shorter (a loop bounded at the edit), there is nothing to quarantine.
 */
const FROZE_MS = 3000;

/** The `shader_hang` probe. */
export const shaderHang: Probe = {
  name: "shader_hang",
  summary:
    "an endless-loop and a 10^7-iteration Effect shader on the playing Clip from a paired device: output draws again within 10 s of the machine's CPU, preset quarantined, clock never stops",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  await withShow(tally, async (svc) => {
    let device = await RemoteDevice.pair(svc.ports.http);
    // Short (CI): the endless loop only; full: both.
    const shaders = context.mode === "short" ? HANG_SHADERS.slice(0, 1) : HANG_SHADERS;
    for (const [i, shader] of shaders.entries()) {
      context.log(`shader_hang: the ${shader.name} shader on ${PLAYING_CLIP}`);
      await oneShader(svc, device, shader, tally);
      if (i === shaders.length - 1) break;
      if (!(await framesGrowWithin(svc.ports.http, 15_000))) {
        tally.note(
          `the output still drew nothing 15 s after the ${shader.name} Effect was taken off: service restarted`,
        );
        await restartShow(svc);
        device = await RemoteDevice.pair(svc.ports.http); // the restarted service's new port
      }
    }
  });
}

/** Puts one shader on the Clip, judges, and takes it off. */
async function oneShader(
  svc: ServiceRun,
  device: RemoteDevice,
  shader: { name: string; code: string },
  tally: Tally,
): Promise<void> {
  const add = await device.edit("preset.add", {
    kind: "effect",
    name: `Probe ${shader.name}`,
    type: "isf",
    code: shader.code,
  });
  tally.inputs++;
  const presetId = RemoteDevice.created(add, "presetID");
  if (presetId === null) {
    // Refusing a loop without a constant bound (as GLSL ES 1.00 does) is one way to bound it.
    const error = add.body?.error as { code?: string } | undefined;
    if (add.status === 422 && error?.code === "INVALID_SHADER") {
      tally.note(`the ${shader.name} preset was refused at the edit: ${answerWords(add)}`);
    } else tally.shortfall(`the ${shader.name} preset was not added: ${answerWords(add)}`);
    return;
  }
  const effect = await device.edit("effect.add", { presetID: presetId });
  const effectId = RemoteDevice.created(effect, "effectID");
  if (effectId === null) {
    tally.shortfall(`no Effect of the ${shader.name} preset: ${answerWords(effect)}`);
    return;
  }
  const watch = new ShowWatch(svc.ports.http);
  const put = await device.edit("clip.update", {
    clipID: PLAYING_CLIP,
    options: { effects: [effectId] },
  });
  tally.inputs++;
  if (put.status !== 200) {
    await watch.stop();
    tally.shortfall(`${shader.name}: the Effect was not put on the Clip: ${answerWords(put)}`);
    return;
  }
  const started = performance.now();
  const settled = await watchUntilSettled(svc, device, presetId);
  const seen = await watch.stop();
  // Two looks in a row that saw new frames are the output drawing at the end, however far
  // apart a starved page's reports come (the show watch's last 2 s may hold none).
  if (settled.isDrawing) seen.isDrawingAtEnd = true;
  if (settled.outcome === "gave up") tally.note(`${shader.name}: the watch gave up (no progress)`);
  const preset = await device.request("GET", `/api/v1/presets/effect/${presetId}`);
  judge(shader.name, {
    ...seen,
    frozenCpuMs: settled.frozenCpuMs,
    quarantine: preset.body?.quarantine,
    watchedS: (performance.now() - started) / 1000,
  }, tally);
  await device.edit("clip.update", { clipID: PLAYING_CLIP, options: { effects: [] } });
}

/** What was seen of one shader on the Clip. */
interface ShaderSeen extends ShowSeen {
  /** The browser's CPU time in its longest span without a new frame, ms (null: unknown). */
  frozenCpuMs: number | null;
  /** The preset's `quarantine` as the service answered it. */
  quarantine: unknown;
  /** How long the watch took, s. */
  watchedS: number;
}

/** The verdict on one shader from what was seen. */
function judge(name: string, seen: ShaderSeen, tally: Tally): void {
  const { quarantine, watchedS, frozenCpuMs } = seen;
  const freezeS = (seen.longestFreezeMs / 1000).toFixed(1);
  const load = Deno.loadavg()[0]!.toFixed(1);
  const limit = frozenCpuLimitMs();
  const frozenWork = frozenCpuMs === null ? "unknown" : `${(frozenCpuMs / 1000).toFixed(1)} s`;
  if (frozenCpuMs === null || frozenCpuMs >= limit) {
    tally.shortfall(
      `${name}: the output did not draw again within ${DRAWS_AGAIN_WITHIN_MS / 1000} s of the ` +
        `machine's CPU: the browser had ${frozenWork} of CPU without a new frame (target ` +
        `under ${limit / 1000} s: ${DRAWS_AGAIN_WITHIN_MS / 1000} s on each of ` +
        `${navigator.hardwareConcurrency} cores)`,
    );
  }
  tally.note(
    `${name}: longest span without a new frame ${freezeS} s, in which the browser had ` +
      `${frozenWork} of CPU, used or idle (target under ${
        limit / 1000
      } s), load average ${load}; ` +
      `watched ${watchedS.toFixed(1)} s, ` +
      `drawing at the end: ${seen.isDrawingAtEnd}, clock stopped at ${seen.clockStops} of ${seen.samples} samples, ` +
      `preset.quarantine ${JSON.stringify(quarantine ?? "absent")}`,
  );
  if (!seen.isDrawingAtEnd) {
    tally.shortfall(
      `${name}: the output was not drawing at the end (after ${freezeS} s without a new frame)`,
    );
  }
  const isQuarantined = quarantine !== null && quarantine !== undefined;
  if (!isQuarantined && seen.longestFreezeMs < FROZE_MS) {
    tally.note(`${name}: the frames never stopped (the loop's bound held): nothing to quarantine`);
  } else if (!isQuarantined) {
    tally.shortfall(
      `${name}: the preset was not quarantined (preset.quarantine ${
        quarantine === null ? "null" : "absent"
      })`,
    );
  }
  if (seen.clockStops > 0) {
    tally.shortfall(
      `${name}: the show's clock stopped (${PLAYING_CLIP} not moving at ${seen.clockStops} samples)`,
    );
  }
}

/** One look of the watch: what the service and the machine showed. */
export interface WatchLook {
  /** ms, monotonic. */
  at: number;
  isQuarantined: boolean;
  /** `/health` `output.browserStarts` (null: not answered). */
  starts: number | null;
  /** `/health` `output.framesDrawn` (null: not answered, or no page). */
  frames: number | null;
  /** CPU time of the player's browser processes, ms (null: unknown). */
  browserCpuMs: number | null;
  /** Time the machine's cores lay idle since boot, ms (null: unknown). */
  idleCpuMs: number | null;
}

/**
 * The watch's decision, by progress and by work, never by a window of wall-clock time alone:
 * settled when the output drew in two looks in a row (each look's count above the one before),
 * at least `SETTLED_AFTER_MS` after the edit with the preset quarantined (`WATCH_MS` without);
 * given up when nothing new came (no quarantine, no browser start, no change of the frame count)
 * while both `NO_PROGRESS_MS` passed and the browser used `NO_PROGRESS_CPU_MS` of CPU (a
 * starved browser that has not yet done the work its player judges a stall by is waited for;
 * where its CPU time is unknown, the wall-clock bound alone), or after `NO_PROGRESS_CEILING_MS`
 * however it went, so the probe stops by itself.
 */
export class SettleWatch {
  readonly #startedAt: number;
  #progressAt: number;
  #workSinceProgress = 0;
  #last: WatchLook | null = null;
  #drawingLooks = 0;
  #frozenCpuMs = 0;
  #longestFrozenCpuMs: number | null = null;

  constructor(startedAt: number) {
    this.#startedAt = this.#progressAt = startedAt;
  }

  /**
   * The CPU the browser had in the longest run of looks without a new frame, ms (what it used
   * and what lay idle: `DRAWS_AGAIN_WITHIN_MS`), from the look after the last that saw frames to
   * the look that saw them again (within a look, about a second, of the span itself); null while
   * unknown.
   */
  get longestFrozenCpuMs(): number | null {
    return this.#longestFrozenCpuMs;
  }

  /** Whether the last two looks both saw the output draw. */
  get isDrawing(): boolean {
    return this.#drawingLooks >= 2;
  }

  /** Takes a look; "settled", "gave up", or null to look again. */
  look(now: WatchLook): "settled" | "gave up" | null {
    const last = this.#last;
    this.#last = now;
    if (last === null) return null;
    const isDrawing = now.frames !== null && last.frames !== null && now.frames > last.frames;
    this.#drawingLooks = isDrawing ? this.#drawingLooks + 1 : 0;
    const isNew = now.isQuarantined !== last.isQuarantined || now.starts !== last.starts ||
      (now.frames !== last.frames && now.frames !== null);
    const used = now.browserCpuMs !== null && last.browserCpuMs !== null
      ? Math.max(0, now.browserCpuMs - last.browserCpuMs) // never back (`BrowserCpu`); a guard
      : null;
    const idle = now.idleCpuMs !== null && last.idleCpuMs !== null
      ? Math.max(0, now.idleCpuMs - last.idleCpuMs)
      : null;
    if (used !== null && idle !== null) {
      this.#frozenCpuMs += used + idle;
      this.#longestFrozenCpuMs = Math.max(this.#longestFrozenCpuMs ?? 0, this.#frozenCpuMs);
    }
    if (isDrawing) this.#frozenCpuMs = 0;
    if (isNew) {
      this.#progressAt = now.at;
      this.#workSinceProgress = 0;
    } else this.#workSinceProgress += used ?? 0;
    const since = now.at - this.#startedAt;
    if (this.isDrawing && since >= (now.isQuarantined ? SETTLED_AFTER_MS : WATCH_MS)) {
      return "settled";
    }
    const quiet = now.at - this.#progressAt;
    if (quiet >= NO_PROGRESS_CEILING_MS) return "gave up";
    const isWorkDone = used === null || this.#workSinceProgress >= NO_PROGRESS_CPU_MS;
    return quiet >= NO_PROGRESS_MS && isWorkDone ? "gave up" : null;
  }
}

/**
 * Waits for the outcome (`SettleWatch`), a look about every second: the preset's quarantine,
 * the browser's starts and the output's frame count from the service, the browser's CPU time
 * from `/proc`. Resolves with the outcome and whether the output drew in the last two looks.
 */
async function watchUntilSettled(
  svc: ServiceRun,
  device: RemoteDevice,
  presetId: string,
): Promise<{ outcome: "settled" | "gave up"; isDrawing: boolean; frozenCpuMs: number | null }> {
  const port = svc.ports.http;
  const watch = new SettleWatch(performance.now());
  const cpu = new BrowserCpu();
  for (;;) {
    const preset = await device.request("GET", `/api/v1/presets/effect/${presetId}`);
    const player = await svc.playerPid();
    const outcome = watch.look({
      at: performance.now(),
      isQuarantined: preset.body?.quarantine !== null && preset.body?.quarantine !== undefined,
      starts: await browserStarts(port),
      frames: framesDrawnOf(await healthNow(port)),
      browserCpuMs: await cpu.read(player),
      idleCpuMs: await machineIdleMs(),
    });
    if (outcome) {
      return { outcome, isDrawing: watch.isDrawing, frozenCpuMs: watch.longestFrozenCpuMs };
    }
    await sleep(1000);
  }
}

/**
 * The CPU time the processes under the player used since the watch began, ms, across a restart
 * of the player: each player's (its browser's, killed ones included: `DescendantsCpu`) summed,
 * so the total never goes back and a new browser's start counts; null until one was read.
 */
export class BrowserCpu {
  #meters = new Map<number, { meter: DescendantsCpu; last: number | null }>();

  /** The total now, reading the processes under `player` (null: none running now). */
  async read(player: number | null): Promise<number | null> {
    if (player !== null) {
      const known = this.#meters.get(player) ?? { meter: new DescendantsCpu(player), last: null };
      this.#meters.set(player, known);
      known.last = (await known.meter.read()) ?? known.last;
    }
    const readings = [...this.#meters.values()].flatMap((m) => m.last === null ? [] : [m.last]);
    return readings.length === 0 ? null : readings.reduce((a, b) => a + b, 0);
  }
}

/** A clean restart of the service, its first frame and the Clip playing again. */
async function restartShow(svc: ServiceRun): Promise<void> {
  await svc.restart();
  if (!(await waitReady(svc))) throw new Error("The player was not ready within 30 s of a restart");
  if ((await framesWithin(svc.ports.http, 60_000)) === null) {
    throw new Error("No frame drawn within 60 s of a restart");
  }
  await postAction(svc.ports.http, "PLAY_CLIP_IN", [PLAYING_CLIP]);
}
