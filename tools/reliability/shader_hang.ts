/**
 * Probe `shader_hang` (issue 40): a paired device (127.0.0.2) adds an Effect
 * preset whose shader loops forever, then one that loops 10^7 times, each put
 * on the playing Clip over HTTP. For each: the output must draw again
 * (`/health` `output.framesDrawn` grows at the end), the preset must be
 * quarantined (`preset.quarantine` non-null), and the show's clock must never
 * stop (the playing Clip's position moves at every half-second sample). The
 * watch ends on the outcome, not after a fixed time: quarantined and drawing
 * (at least 8 s after the edit; 20 s when nothing is quarantined), or nothing
 * new (no quarantine, no browser start, no frame) for 60 s. The longest span
 * without a new frame is the figure against the 10 s target (a busy machine
 * stretches a browser's restart: slow is not dead). A
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
const WATCH_MS = 20_000;
/** The watch gives up after this long without progress (a quarantine, a browser start, a frame). */
const NO_PROGRESS_MS = 60_000;
/** The watch may end early (quarantined, drawing again) from this long after the edit. */
const SETTLED_AFTER_MS = 8000;
/** The output should draw again within this (a figure: a busy machine stretches it). */
const DRAWS_AGAIN_WITHIN_MS = 10_000;

/**
 * A span without a new frame this long is the output stopped: the preset must then be
 * quarantined. Shorter (a loop bounded at the edit), there is nothing to quarantine.
 */
const FROZE_MS = 3000;

/** The `shader_hang` probe. */
export const shaderHang: Probe = {
  name: "shader_hang",
  summary:
    "an endless-loop and a 10^7-iteration Effect shader on the playing Clip from a paired device: output draws again within 10 s, preset quarantined, clock never stops",
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
  await watchUntilSettled(svc.ports.http, device, presetId);
  const seen = await watch.stop();
  const preset = await device.request("GET", `/api/v1/presets/effect/${presetId}`);
  judge(shader.name, seen, preset.body?.quarantine, (performance.now() - started) / 1000, tally);
  await device.edit("clip.update", { clipID: PLAYING_CLIP, options: { effects: [] } });
}

/** The verdict on one shader from what was seen (`watchedS`: how long the watch took). */
function judge(
  name: string,
  seen: ShowSeen,
  quarantine: unknown,
  watchedS: number,
  tally: Tally,
): void {
  const freezeS = (seen.longestFreezeMs / 1000).toFixed(1);
  const load = Deno.loadavg()[0]!.toFixed(1);
  tally.note(
    `${name}: longest span without a new frame ${freezeS} s (target: draws again within ` +
      `${DRAWS_AGAIN_WITHIN_MS / 1000} s: ${
        seen.longestFreezeMs < DRAWS_AGAIN_WITHIN_MS ? "met" : "missed"
      }, load average ${load}), watched ${watchedS.toFixed(1)} s, ` +
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

/**
 * Waits for the outcome, by progress: the preset quarantined and the output drawing again (at
 * least 8 s after the edit, so a freeze that comes late is still seen), or drawing after 20 s
 * with nothing quarantined; it gives up after 60 s with nothing new (no quarantine, no browser
 * start, no frame), however long a busy machine takes to start the browser again.
 */
async function watchUntilSettled(
  port: number,
  device: RemoteDevice,
  presetId: string,
): Promise<void> {
  const started = performance.now();
  let progressAt = started;
  let last = { isQuarantined: false, starts: await browserStarts(port) };
  let drawingLooks = 0;
  while (performance.now() - progressAt < NO_PROGRESS_MS) {
    await sleep(1000);
    const preset = await device.request("GET", `/api/v1/presets/effect/${presetId}`);
    const isQuarantined = preset.body?.quarantine !== null && preset.body?.quarantine !== undefined;
    const starts = await browserStarts(port);
    const isDrawing = await drawsWithin(port, 1500);
    drawingLooks = isDrawing ? drawingLooks + 1 : 0;
    if (isDrawing || isQuarantined !== last.isQuarantined || starts !== last.starts) {
      progressAt = performance.now();
    }
    last = { isQuarantined, starts };
    const since = performance.now() - started;
    // Two looks in a row: the watch's last samples are all of a page drawing (a new one's count).
    if (drawingLooks >= 2 && since >= (isQuarantined ? SETTLED_AFTER_MS : WATCH_MS)) return;
  }
}

/**
 * Whether `output.framesDrawn` grows within `ms` from a count read now: a browser starting
 * again may have none yet (not drawing) or count from 0 again (counted from there).
 */
async function drawsWithin(port: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  let last = framesDrawnOf(await healthNow(port));
  while (performance.now() < deadline) {
    await sleep(500);
    const now = framesDrawnOf(await healthNow(port));
    if (now !== null && last !== null && now > last) return true;
    last = now;
  }
  return false;
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
