/**
 * The output part of `deno task bench`: the player's output in headless
 * Chromium (software GL on this machine), driven over HTTP.
 *
 * - Trigger to picture: from an HTTP action leaving the client to the first
 *   frame the page draws with it (the page maps the player's clock; the
 *   service, the player and the bench share one process and one clock),
 *   p50 and p99 over 100 triggers, in frames of the display's rate.
 * - Preset edit to picture: from the answer of an edit of an ISF preset's code
 *   to the first frame drawn with the new program (compiled in the page), p50
 *   and p99 in ms over 50 edits.
 * - A 60 s video with 3 more layers and 2 Effects at 1280x720, 30 fps: its
 *   largest drift against the player's clock, and the frames dropped.
 * - The cost of a transition: frames a second drawn with the video and a layer showing, and
 *   with the same two crossing out through a dissolve (both pictures and the mix each frame),
 *   paired per round (3 rounds of 3 s each).
 * - The action's p99 over HTTP with the output running and without (the
 *   service as shipped, its player a subprocess, `--output headless|none`).
 *
 * Without Chromium or ffmpeg, one skipped line.
 * @module
 */
import { MonotonicClock } from "../player/mod.ts";
import { openOutputService } from "../tools/testing/output.ts";
import { Project } from "../protocol/model.ts";
import { encodePng } from "../lib/png.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import { startCueport } from "./_cueport.ts";
import { missingPeer } from "./_peers.ts";

const TITLE = "\nOutput (headless Chromium, software GL, 1280x720 at 30 fps, loopback)";
const missing = missingPeer("chromium") ?? missingPeer("ffmpeg");
if (missing) {
  console.log(TITLE);
  console.log(`  skipped: ${missing}`);
  Deno.exit(0);
}

const W = 1280, H = 720, FPS = 30, FRAME_MS = 1000 / FPS;
const TRIGGERS = 100;
const VIDEO_SECONDS = 60;
const ACTIONS = 300;
const EDITS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

function solid(rgb: [number, number, number]): Uint8Array {
  const rgba = new Uint8Array(W * H * 4);
  for (let i = 0; i < W * H; i++) rgba.set([...rgb, 255], i * 4);
  return encodePng(W, H, rgba);
}

/** A data dir with stills, a 60 s 720p video, and a Project of them. */
async function benchDataDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-output-bench-" });
  const media = `${dir}/projects/bench/media`;
  await Deno.mkdir(media, { recursive: true });
  const colours: Record<string, [number, number, number]> = {
    red: [255, 0, 0],
    black: [0, 0, 0],
    blue: [0, 0, 255],
    white: [255, 255, 255],
  };
  for (const [name, rgb] of Object.entries(colours)) {
    await Deno.writeFile(`${media}/${name}.png`, solid(rgb));
  }
  const video = await new Deno.Command("ffmpeg", {
    args: [
      ...["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi"],
      ...["-i", `testsrc2=s=${W}x${H}:r=${FPS}:d=${VIDEO_SECONDS}`],
      ...["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "2M"],
      `${media}/video.webm`,
    ],
  }).output();
  if (!video.success) throw new Error("ffmpeg could not make the bench video");
  const still = (name: string) => ({
    id: `f-${name}`,
    kind: "image",
    name: `${name}.png`,
    path: `media/${name}.png`,
    mimeType: "image/png",
    size: 1,
    width: W,
    height: H,
    duration: null,
  });
  const clip = (id: string, fileId: string, extra: Record<string, unknown> = {}) => ({
    id,
    name: id,
    fileId,
    duration: VIDEO_SECONDS,
    ...extra,
  });
  await writeJsonAtomic(
    `${dir}/projects/bench/project.json`,
    Project.parse({
      id: "bench",
      name: "Output bench",
      display: { width: W, height: H, fps: FPS },
      files: [...Object.keys(colours).map(still), {
        id: "f-video",
        kind: "video",
        name: "video.webm",
        path: "media/video.webm",
        mimeType: "video/webm",
        size: 1,
        width: W,
        height: H,
        duration: VIDEO_SECONDS,
      }],
      effects: [
        { id: "soft", name: "Blur", type: "blur", presetId: "fx-blur", params: { radius: 4 } },
        { id: "kal", name: "Kaleidoscope", type: "kaleidoscope", presetId: "fx-kaleidoscope" },
      ],
      clips: [
        clip("video", "f-video"),
        clip("blue", "f-blue", { options: { opacity: 0.3, effects: ["soft"] } }),
        clip("white", "f-white", { options: { opacity: 0.2, effects: ["kal"] } }),
        clip("black", "f-black", { options: { opacity: 0.5 } }),
        clip("red", "f-red", { options: { opacity: 0.5 } }),
      ],
    }),
  );
  return dir;
}

/** A service in this process whose player (in this process too) shows a headless output. */
async function inProcessService(dataDir: string) {
  const { output, base, stop } = await openOutputService(dataDir, { clock: new MonotonicClock() });
  const action = (name: string, params: unknown[] = []) =>
    fetch(`${base}/api/v1/action`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, params }),
    }).then((r) => r.body?.cancel());
  const edit = async (name: string, params: unknown) => {
    const res = await fetch(`${base}/api/v1/edit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, params }),
    });
    // deno-lint-ignore no-explicit-any
    const body = await res.json() as any;
    if (!res.ok) throw new Error(`${name}: ${JSON.stringify(body)}`);
    return body.edits[0];
  };
  return { output, action, edit, stop };
}

/** An ISF effect whose code differs by `shade` (each edit makes a new program to compile). */
const tintCode = (shade: number) =>
  `/*{"INPUTS": [{"NAME": "inputImage", "TYPE": "image"}, ` +
  `{"NAME": "amount", "TYPE": "float", "MIN": 0, "MAX": 1, "DEFAULT": 1}]}*/
void main() {
  vec4 c = IMG_THIS_PIXEL(inputImage);
  gl_FragColor = vec4(mix(c.rgb, vec3(${(shade / EDITS).toFixed(3)}), amount), c.a);
}
`;

/**
 * Preset edit to picture: from the answer of a \`preset.update\` of an ISF effect's code
 * (over HTTP) to the first frame the page draws with the new program, p50 and p99 in ms.
 */
async function presetEditToFrame(run: Awaited<ReturnType<typeof inProcessService>>) {
  const { output, action, edit } = run;
  await action("STOP_IN");
  const presetID = (await edit("preset.add", {
    kind: "effect",
    name: "Tint",
    type: "isf",
    code: tintCode(0),
  })).created.presetID;
  const effectID = (await edit("effect.add", { presetID })).created.effectID;
  await edit("clip.update", { clipID: "red", options: { effects: [effectID] } });
  await action("TRIGGER_CLIP_IN", ["red"]);
  await output.frame();
  const from = output.programs.pushes.length;
  const edits: { sent: number; answered: number }[] = [];
  for (let i = 1; i <= EDITS; i++) {
    const sent = performance.now();
    await edit("preset.update", { kind: "effect", presetID, code: tintCode(i) });
    edits.push({ sent, answered: performance.now() });
    await sleep(150);
  }
  await sleep(2500); // the reports of the last second
  const drawn = output.reports.flatMap((r) => r.firstFrames).sort((a, b) => a.seq - b.seq);
  // Each edit makes one new program, sent with the first state that draws it.
  const pushes = output.programs.pushes.slice(from);
  const ms = edits.flatMap(({ answered }, i) => {
    const push = pushes[i];
    const frame = push ? drawn.find((f) => f.seq >= push.seq) : undefined;
    return frame === undefined ? [] : [frame.clock - answered];
  });
  return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99), n: ms.length };
}

/** Trigger to first frame, in frames: p50 and p99. */
async function triggerToFrame(run: Awaited<ReturnType<typeof inProcessService>>) {
  const { output, action } = run;
  await output.frame(); // the page is up and has drawn
  const sent: number[] = [];
  for (let i = 0; i < TRIGGERS; i++) {
    const t0 = performance.now();
    await action("TRIGGER_CLIP_IN", [i % 2 ? "red" : "black"]);
    sent.push(t0);
    await sleep(120);
  }
  await sleep(2500); // the reports of the last second
  // The first frame of a state or of a later one: a state superseded before a frame
  // was drawn shows first in the next.
  const drawn = output.reports.flatMap((r) => r.firstFrames).sort((a, b) => a.seq - b.seq);
  const frames = sent.flatMap((t0) => {
    const push = output.pushes.find((p) => p.at >= t0);
    const frame = push ? drawn.find((f) => f.seq >= push.seq) : undefined;
    return frame === undefined ? [] : [(frame.clock - t0) / FRAME_MS];
  });
  return { p50: percentile(frames, 0.5), p99: percentile(frames, 0.99), n: frames.length };
}

/** The 60 s video with 3 more layers and 2 Effects: drift and dropped frames. */
async function longRun(run: Awaited<ReturnType<typeof inProcessService>>) {
  const { output, action } = run;
  await action("STOP_IN");
  for (const clip of ["video", "blue", "white", "black"]) await action("TRIGGER_CLIP_IN", [clip]);
  await output.frame();
  const from = output.reports.length;
  await sleep(VIDEO_SECONDS * 1000);
  // The first two seconds: the video loads and is sought once.
  const reports = output.reports.slice(from + 2);
  const frames = reports.reduce((n, r) => n + r.frames, 0);
  const dropped = reports.reduce((n, r) => n + r.dropped, 0);
  const minutes = reports.length / 60;
  return {
    driftMaxMs: Math.max(...reports.map((r) => r.driftMs)),
    driftP50Ms: percentile(reports.map((r) => r.driftMs), 0.5),
    droppedPerMinute: dropped / minutes,
    fps: frames / reports.length,
  };
}

/** Frames a second the page drew over `seconds` from now (its per-second reports). */
async function fpsOver(
  output: Awaited<ReturnType<typeof inProcessService>>["output"],
  seconds = 3,
) {
  const from = output.reports.length;
  await sleep((seconds + 1) * 1000);
  const reports = output.reports.slice(from + 1, from + 1 + seconds);
  return reports.reduce((n, r) => n + r.frames, 0) / Math.max(1, reports.length);
}

/**
 * The cost of a transition on the frame rate, paired per round: the video and the red layer
 * showing, then the same two crossing out (`STOP_ALL_CLIPS_IN`) through a 60 s dissolve.
 */
async function transitionCost(run: Awaited<ReturnType<typeof inProcessService>>) {
  const { output, action, edit } = run;
  const rounds: { without: number; with: number }[] = [];
  for (let i = 0; i < 3; i++) {
    await edit("project.set_transition", { transition: null });
    await action("STOP_ALL_CLIPS_IN");
    for (const clip of ["video", "red"]) await action("TRIGGER_CLIP_IN", [clip]);
    const without = await fpsOver(output);
    await edit("project.set_transition", { transition: { presetId: "tr-dissolve", duration: 60 } });
    await action("STOP_ALL_CLIPS_IN");
    rounds.push({ without, with: await fpsOver(output) });
  }
  await edit("project.set_transition", { transition: null });
  const median = (xs: number[]) => percentile(xs, 0.5);
  return {
    without: median(rounds.map((r) => r.without)),
    with: median(rounds.map((r) => r.with)),
    costPercent: median(rounds.map((r) => (1 - r.with / r.without) * 100)),
  };
}

/** p99 of an HTTP action (ms) on the service as shipped, with `--output mode`. */
async function actionP99(dataDir: string, mode: "none" | "headless") {
  const cueport = await startCueport(dataDir, ["--output", mode]);
  const base = `http://127.0.0.1:${cueport.ports.http}`;
  const post = (name: string, params: unknown[]) =>
    fetch(`${base}/api/v1/action`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, params }),
    }).then((r) => r.text());
  try {
    // Something plays, so the output (when there is one) draws all along.
    for (const clip of ["video", "blue", "white", "black"]) await post("TRIGGER_CLIP_IN", [clip]);
    await sleep(3000);
    const times: number[] = [];
    for (let i = 0; i < ACTIONS; i++) {
      const t0 = performance.now();
      await post("SET_CONTROL", ["A", (i % 100) / 100]);
      times.push(performance.now() - t0);
    }
    return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
  } finally {
    await cueport.stop();
  }
}

if (import.meta.main) await main();

async function main() {
  const dataDir = await benchDataDir();
  try {
    const run = await inProcessService(dataDir);
    let trigger, long, presetEdit, transition;
    try {
      trigger = await triggerToFrame(run);
      presetEdit = await presetEditToFrame(run);
      transition = await transitionCost(run);
      long = await longRun(run);
    } finally {
      await run.stop();
    }
    await Deno.remove(`${dataDir}/live.json`).catch(() => {});
    const without = await actionP99(dataDir, "none");
    const withOutput = await actionP99(dataDir, "headless");
    const f = (n: number, d = 1) => n.toFixed(d);
    console.log(TITLE);
    console.log(
      `  trigger to first frame: p50 ${f(trigger.p50)} frames, p99 ${f(trigger.p99)} frames ` +
        `(${trigger.n} triggers; goal p99 <= 2)`,
    );
    console.log(
      `  ISF preset code edit (HTTP answer) to the first frame drawn with the new code: ` +
        `p50 ${f(presetEdit.p50)} ms, p99 ${f(presetEdit.p99)} ms (${presetEdit.n} edits; ` +
        `goal within 2 frames, ${f(2 * FRAME_MS)} ms)`,
    );
    console.log(
      `  60 s video + 3 layers + 2 Effects: drift max ${f(long.driftMaxMs)} ms ` +
        `(p50 of the per-second maxima ${f(long.driftP50Ms)} ms; goal < ${f(FRAME_MS)} ms), ` +
        `${f(long.droppedPerMinute)} frames dropped a minute (${f(long.fps)} fps drawn)`,
    );
    console.log(
      `  a transition running (dissolve of the video and a layer): ${f(transition.with)} fps ` +
        `drawn, ${f(transition.without)} fps without it (${f(transition.costPercent, 0)}% fewer, ` +
        `median of 3 rounds paired)`,
    );
    console.log(
      `  HTTP action: p99 ${f(withOutput.p99, 2)} ms with the output, ${f(without.p99, 2)} ms ` +
        `without (${f((withOutput.p99 / without.p99 - 1) * 100, 0)}%; goal within 20%); ` +
        `p50 ${f(withOutput.p50, 2)} / ${f(without.p50, 2)} ms`,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}
