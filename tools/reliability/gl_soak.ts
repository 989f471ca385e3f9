/**
 * Probe `gl_soak` (issue 43): a night of editing and resizing, compressed. A service with a
 * headless output plays the demo Clip with an Effect of a user ISF preset on it, and the
 * preset's editor open (the editor page draws its preview in the output's browser). For
 * `SOAK_MS` (short: a twelfth, after a shorter warm-up), a paired device (127.0.0.2) sends the preset's code every 100 ms
 * (or as soon as the last edit is answered, when that takes longer), in turn code the output's
 * GL refuses (a type error, new each time) and the good code, and changes the
 * display's size every few seconds (`project.set_display`, through `SIZES`). Read after a
 * warm-up and at the end: the RSS of the browser's GPU process (`--type=gpu-process`) and of
 * its renderers (`--type=renderer`, summed: the output page and the editor page), the
 * output page's live GL objects (`/health` `output.glObjects`, the page's own count) and the
 * editor page's (`output.editor.glObjects`) with the programs its GL refused
 * (`output.editor.compileErrors`). It fails when a figure is missing, when nothing was
 * exercised, when the end is above the start by more than the bounds below, when the edit
 * check refused an edit (the refused code never reached GL), or when the editor page's GL did
 * not refuse about as many programs as refused code was sent (the page's own count, not one
 * assumed: code that stopped reaching GL would leak nothing and prove nothing).
 * @module
 */
import type { ServiceRun } from "./_harness.ts";
import { postAction } from "./_load_recording.ts";
import { healthNow } from "./_load_sampler.ts";
import { PLAYING_CLIP, sleep, withShow } from "./_output_show.ts";
import { browserProcesses, type ProcessRow, shell } from "./_process_tree.ts";
import { answerWords, RemoteDevice } from "./_remote_device.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import type { Tally } from "./_tally.ts";
import { ES_310_ONLY, INVERT } from "../testing/isf_shaders.ts";

/** The good code: an inverting Effect (the tests' own). */
const GOOD = INVERT;
/**
 * Code the edit's check takes and the output's GL refuses, new each `n`: a GLSL ES 3.10 built-in
 * (`ldexp`), which the check's compiler (glslang, ES 3.10) knows and WebGL2 (ES 3.00) does not. A
 * type error, as before issue 45, is now refused by the check itself and never reaches GL.
 */
const broken = (n: number) => ES_310_ONLY + `// ${n}\n`;

/**
 * How long the soak runs after its warm-up, ms. Short mode, as CI runs it: a twelfth of it (15 s:
 * about 150 edits and 3 resizes here), as the soak was the suite's costliest probe (112 CPU-s of
 * 60 s alone at a sixth), and what a leak is shows in the counts at once (`SHORT_WARM_UP_MS`).
 */
const SOAK_MS = 180_000;
/** The share of SOAK_MS a short run soaks. */
const SHORT_SHARE = 1 / 12;
const WARM_UP_MS = 20_000;
/** Short mode's warm-up: a leak shows in the GL object counts at once, not in minutes. */
const SHORT_WARM_UP_MS = 10_000;
const EDIT_EVERY_MS = 100;
const RESIZE_EVERY_MS = 4_000;
/** Time for the output to draw the settled show before a sample (a report a second). */
const SETTLE_MS = 4_000;
/** The least work that exercises anything: edits sent, resizes made. */
const LEAST_EDITS = 20;
const LEAST_RESIZES = 3;
/** The soak goes on until the least work is done, up to this many times its length. */
const EXTEND_TIMES = 6;
/** The display sizes the soak goes through, in turn. */
const SIZES: readonly [number, number][] = [[1280, 720], [960, 540], [1920, 1080], [640, 360]];
/** The growth allowed from the start to the end: GPU process, renderers (MB), GL objects. */
const GPU_GROWTH_MB = 64;
const RENDERER_GROWTH_MB = 64;
/** Live GL objects: the page keeps up to 32 preset programs (`PAGE_KEEPS`), their shaders. */
const OBJECTS_GROWTH = 8;
/**
 * The share of the refused code sent that the editor page's GL must be seen refusing: a program
 * replaced before the page took it (two edits within one state push) is never compiled.
 */
const LEAST_REFUSED_SHARE = 0.8;

/** The work done: edits sent (refused code among them), refused by the edit check, resizes. */
interface Counts {
  edits: number;
  brokenEdits: number;
  refusedEdits: number;
  resizes: number;
}

/** The `gl_soak` probe. */
export const glSoak: Probe = {
  name: "gl_soak",
  summary:
    "the editor open, refused and good code every 100 ms and a resize every 4 s for 3 min: the GPU process's and renderers' RSS and both pages' GL objects stay flat, the editor page's GL refuses the refused code",
  run,
};

/** What is read at the start and at the end. */
interface Sample {
  gpuMb: number | null;
  rendererMb: number | null;
  objects: Record<string, number> | null;
  /** The editor page's own figures (`/health` `output.editor`), null when it reported none. */
  editor: { glObjects: Record<string, number> | null; compileErrors: number } | null;
}

async function run(context: ProbeContext): Promise<void> {
  const { tally, mode } = context;
  const soakMs = mode === "short" ? SOAK_MS * SHORT_SHARE : SOAK_MS;
  const warmUpMs = mode === "short" ? SHORT_WARM_UP_MS : WARM_UP_MS;
  await withShow(tally, async (svc) => {
    const device = await RemoteDevice.pair(svc.ports.http);
    const presetId = await openEditorOnEffect(svc, device);
    const counts: Counts = { edits: 0, brokenEdits: 0, refusedEdits: 0, resizes: 0 };
    // The warm-up: the same work, so that what a first edit or size makes once is made.
    await exercise(device, presetId, warmUpMs, counts);
    const start = await settled(svc, device, presetId);
    const atStart = { ...counts };
    const soakStart = performance.now();
    await exercise(device, presetId, soakMs, counts, atStart);
    const soakedMs = Math.round(performance.now() - soakStart);
    const end = await settled(svc, device, presetId);
    tally.inputs += counts.edits + counts.resizes;
    judge(tally, start, end, soakedMs);
    judgeWork(tally, start, end, atStart, counts, soakedMs);
  });
}

/** Adds the preset, its Effect on the playing Clip, and opens its editor; answers its id. */
async function openEditorOnEffect(svc: ServiceRun, device: RemoteDevice): Promise<string> {
  const add = await device.edit("preset.add", {
    kind: "effect",
    name: "Soak invert",
    type: "isf",
    code: GOOD,
  });
  const presetId = RemoteDevice.created(add, "presetID");
  if (presetId === null) throw new Error(`preset.add: ${answerWords(add)}`);
  const effect = await device.edit("effect.add", { presetID: presetId });
  const effectId = RemoteDevice.created(effect, "effectID");
  if (effectId === null) throw new Error(`effect.add: ${answerWords(effect)}`);
  const put = await device.edit("clip.update", {
    clipID: PLAYING_CLIP,
    options: { effects: [effectId] },
  });
  if (put.status !== 200) throw new Error(`clip.update: ${answerWords(put)}`);
  const opened = await postAction(svc.ports.http, "OPEN_EDITOR", ["effect", presetId]);
  if (opened.status !== 200) throw new Error(`OPEN_EDITOR answered ${opened.status}`);
  await editorReported(svc);
  return presetId;
}

/** How long the editor page may take to load and send its first report (a busy machine). */
const EDITOR_REPORT_WAIT_MS = 120_000;

/**
 * Waits until the editor page's first report reached the player (`/health` `output.editor`):
 * its figures are what the soak judges. A page that never reports fails the probe here, with
 * the editor's state, rather than as figures "not measured" at the end.
 */
async function editorReported(svc: ServiceRun): Promise<void> {
  const until = performance.now() + EDITOR_REPORT_WAIT_MS;
  let last: unknown = null;
  while (performance.now() < until) {
    const health = await healthNow(svc.ports.http) as { output?: { editor?: unknown } } | null;
    last = health?.output ?? null;
    if (health?.output?.editor) return;
    await sleep(500);
  }
  throw new Error(
    `the editor page sent no report in ${EDITOR_REPORT_WAIT_MS / 1000} s after OPEN_EDITOR ` +
      `(/health output: ${JSON.stringify(last)?.slice(0, 400)})`,
  );
}

/**
 * For `ms`: the preset's code every EDIT_EVERY_MS, refused and good in turn, and the display's
 * size every RESIZE_EVERY_MS; counted into `counts`. Given the counts at its start (`from`), it
 * goes on past `ms` until the least work (LEAST_EDITS, LEAST_RESIZES) is done, as a starved
 * machine answers an edit in seconds (11 edits in 30 s at a load of 50), up to `EXTEND_TIMES`
 * `ms` in all; the soak's figures are judged over the work done, not the time.
 */
async function exercise(
  device: RemoteDevice,
  presetId: string,
  ms: number,
  counts: Counts,
  from?: Counts,
): Promise<void> {
  const now = performance.now();
  const end = now + ms;
  const cap = now + ms * EXTEND_TIMES;
  const isShort = () =>
    from !== undefined &&
    (counts.edits - from.edits < LEAST_EDITS || counts.resizes - from.resizes < LEAST_RESIZES);
  let nextResize = performance.now() + RESIZE_EVERY_MS;
  while (performance.now() < end || (isShort() && performance.now() < cap)) {
    const started = performance.now();
    const isBroken = counts.edits % 2 === 0;
    const code = isBroken ? broken(counts.edits) : GOOD;
    const answer = await device.edit("preset.update", { kind: "effect", presetID: presetId, code });
    counts.edits++;
    if (isBroken) counts.brokenEdits++;
    if (answer.status !== 200) counts.refusedEdits++;
    if (performance.now() >= nextResize) {
      const [width, height] = SIZES[counts.resizes % SIZES.length]!;
      const resized = await device.edit("project.set_display", { width, height });
      if (resized.status === 200) counts.resizes++;
      nextResize = performance.now() + RESIZE_EVERY_MS;
    }
    const wait = EDIT_EVERY_MS - (performance.now() - started);
    if (wait > 0) await sleep(wait);
  }
}

/** The figures once the good code and the first size have been drawn a few seconds. */
async function settled(svc: ServiceRun, device: RemoteDevice, presetId: string): Promise<Sample> {
  await device.edit("preset.update", { kind: "effect", presetID: presetId, code: GOOD });
  const [width, height] = SIZES[0]!;
  await device.edit("project.set_display", { width, height });
  await sleep(SETTLE_MS);
  return await sample(svc);
}

/** The RSS (MB) of the browser's processes whose command line has `--type=<type>`, summed. */
async function rssOf(rows: readonly ProcessRow[], type: string): Promise<number | null> {
  const pids = rows.filter((r) => r.args.includes(`--type=${type}`)).map((r) => String(r.pid));
  if (pids.length === 0) return null;
  const text = await shell(
    'for p in "$@"; do grep -s "^VmRSS:" /proc/$p/status; done',
    pids,
  );
  const kb = [...text.matchAll(/VmRSS:\s+(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  return kb > 0 ? Math.round(kb / 1024) : null;
}

/** The figures now: the GPU process's and renderers' RSS, the output page's GL objects. */
async function sample(svc: ServiceRun): Promise<Sample> {
  const player = await svc.playerPid();
  const rows = player === null ? [] : await browserProcesses(player);
  const health = await healthNow(svc.ports.http) as
    | { output?: { glObjects?: Record<string, number> | null; editor?: Sample["editor"] } }
    | null;
  return {
    gpuMb: await rssOf(rows, "gpu-process"),
    rendererMb: await rssOf(rows, "renderer"),
    objects: health?.output?.glObjects ?? null,
    editor: health?.output?.editor ?? null,
  };
}

/** The sum of the GL objects of every kind, or null. */
function totalOf(objects: Record<string, number> | null): number | null {
  return objects ? Object.values(objects).reduce((a, b) => a + b, 0) : null;
}

/** Notes the figures; a shortfall for each missing figure and each bound passed. */
function judge(tally: Tally, start: Sample, end: Sample, soakMs: number): void {
  const figures: [string, number | null, number | null, number][] = [
    ["GPU process RSS (MB)", start.gpuMb, end.gpuMb, GPU_GROWTH_MB],
    ["renderers' RSS (MB)", start.rendererMb, end.rendererMb, RENDERER_GROWTH_MB],
    ["the output page's GL objects", totalOf(start.objects), totalOf(end.objects), OBJECTS_GROWTH],
    [
      "the editor page's GL objects",
      totalOf(start.editor?.glObjects ?? null),
      totalOf(end.editor?.glObjects ?? null),
      OBJECTS_GROWTH,
    ],
  ];
  for (const [what, from, to, bound] of figures) {
    if (from === null || to === null) {
      tally.shortfall(`${what}: not measured (start ${from}, end ${to})`);
      continue;
    }
    tally.note(`${what}: ${from} after the warm-up, ${to} at the end (bound: +${bound})`);
    if (to - from > bound) tally.shortfall(`${what} grew from ${from} to ${to} (bound +${bound})`);
  }
  tally.note(
    `GL objects by kind, output: ${JSON.stringify(start.objects)} -> ${
      JSON.stringify(end.objects)
    }; editor: ${JSON.stringify(start.editor?.glObjects)} -> ${
      JSON.stringify(end.editor?.glObjects)
    } (soak ${soakMs / 1000} s)`,
  );
}

/**
 * Notes the work done and the rate reached; a shortfall for too little, for an edit refused
 * by the edit check, and for refused code the editor page's GL was not seen refusing.
 */
function judgeWork(
  tally: Tally,
  start: Sample,
  end: Sample,
  atStart: Counts,
  counts: Counts,
  soakMs: number,
): void {
  const edits = counts.edits - atStart.edits;
  const broken = counts.brokenEdits - atStart.brokenEdits;
  const glRefused = start.editor && end.editor
    ? end.editor.compileErrors - start.editor.compileErrors
    : null;
  tally.note(
    `${edits} code edits in ${soakMs / 1000} s after the warm-up (${
      (edits / (soakMs / 1000)).toFixed(1)
    } a second, asked: ${1000 / EDIT_EVERY_MS}), ${broken} of refused code: the editor page's ` +
      `GL refused ${glRefused} programs; ${counts.refusedEdits} edits refused by the edit ` +
      `check; ${counts.resizes - atStart.resizes} resizes in the soak`,
  );
  if (counts.refusedEdits > 0) {
    tally.shortfall(`${counts.refusedEdits} edits refused by the edit check: GL never saw them`);
  }
  if (glRefused === null) tally.shortfall("the editor page's GL refusals: not measured");
  else if (glRefused < Math.floor(broken * LEAST_REFUSED_SHARE)) {
    tally.shortfall(
      `the editor page's GL refused ${glRefused} programs of ${broken} of refused code sent`,
    );
  }
  // Counted over the soak alone: the warm-up's work is before the start's figures.
  const resizes = counts.resizes - atStart.resizes;
  if (edits < LEAST_EDITS || resizes < LEAST_RESIZES) {
    tally.shortfall(`too little exercised in the soak: ${edits} edits, ${resizes} resizes`);
  }
}
