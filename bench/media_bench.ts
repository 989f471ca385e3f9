/**
 * The media part of `deno task bench`: cold thumbnails of 1080p JPEGs, a
 * cached thumbnail beside a bare Deno.serve answering the same bytes (wrk),
 * a cold waveform of a 5-minute stereo WAV, and the action's latency while 20
 * cold thumbnails are being made. The test pictures are made by ffmpeg:
 * without it, those rows are one skipped row (`ffmpeg not found (apt-get
 * install ffmpeg)`) and the waveform (a WAV made here) is still measured. The
 * load is wrk's when installed, else the built-in generator (`load.ts`).
 * @module
 */
import { startCueport } from "./_cueport.ts";
import { type Baseline, capture, startBaseline } from "./_baseline.ts";
import { formatRatio, type Pair, pairedRatio } from "./_stats.ts";
import { missingPeer } from "./_peers.ts";
import { which } from "../tools/peers.ts";
import { createDemoProject } from "../player/demo.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import { wavHeader } from "../player/media/encode.ts";

const here = (path: string) => new URL(path, import.meta.url).pathname;
const dataDir = await Deno.makeTempDir({ prefix: "cueport-media-bench-" });
const work = await Deno.makeTempDir({ prefix: "cueport-media-files-" });
await writeJsonAtomic(
  `${dataDir}/projects/demo/project.json`,
  await createDemoProject(`${dataDir}/projects/demo`),
);

/** 1080p JPEGs of a moving test picture, made by ffmpeg. */
async function jpegs(count: number): Promise<string[]> {
  const out = await new Deno.Command("ffmpeg", {
    args: [
      ...["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=5"],
      ...["-frames:v", String(count), "-q:v", "3", `${work}/frame-%02d.jpg`],
    ],
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return Array.from(
    { length: count },
    (_, i) => `${work}/frame-${String(i + 1).padStart(2, "0")}.jpg`,
  );
}

/** A 5-minute 48 kHz 16-bit stereo WAV: a tone whose level swells and fades. */
async function longWav(): Promise<string> {
  const rate = 48_000, seconds = 300, frames = rate * seconds;
  const header = wavHeader(frames * 4, rate);
  // wavHeader writes mono: make it stereo (channels, byte rate, block align).
  const view = new DataView(header.buffer);
  view.setUint16(22, 2, true);
  view.setUint32(28, rate * 4, true);
  view.setUint16(32, 4, true);
  const data = new Int16Array(frames * 2);
  for (let i = 0; i < frames; i++) {
    const level = 0.5 + 0.5 * Math.sin((2 * Math.PI * i) / (rate * 37));
    const s = Math.round(level * 20_000 * Math.sin((2 * Math.PI * 220 * i) / rate));
    data[2 * i] = s;
    data[2 * i + 1] = -s;
  }
  const path = `${work}/long.wav`;
  const file = await Deno.open(path, { write: true, create: true });
  await file.write(header);
  const bytes = new Uint8Array(data.buffer);
  for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
  file.close();
  return path;
}

const cueport = await startCueport(dataDir);
const api = `http://127.0.0.1:${cueport.ports.http}`;

async function importFile(path: string): Promise<string> {
  const res = await fetch(`${api}/api/v1/edit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "file.import", params: { path } }),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(JSON.stringify(body));
  return body.edits[0].created.fileId;
}

async function timed(url: string): Promise<{ ms: number; bytes: Uint8Array; status: number }> {
  const started = performance.now();
  const res = await fetch(url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { ms: performance.now() - started, bytes, status: res.status };
}

/** wrk, or the built-in load generator where wrk is not installed. */
const LOAD_TOOL = which("wrk") ? "wrk" : "built-in load generator";

/** Requests/s and p99 of `seconds` of GETs over 32 connections. */
async function load(url: string, seconds = 3): Promise<{ rps: number; p99: string }> {
  if (LOAD_TOOL !== "wrk") {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net", here("./load.ts"), url, "GET", "", "32", String(seconds)],
    }).output();
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    return { rps: r.rps, p99: `${r.p99.toFixed(2)}ms` };
  }
  const out = new TextDecoder().decode(
    (await new Deno.Command("wrk", {
      args: ["-t", "1", "-c", "32", "-d", `${seconds}s`, "--latency", url],
    }).output()).stdout,
  );
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p99: /\s99%\s+(\S+)/.exec(out)?.[1] ?? "?",
  };
}

const percentile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

/** Action round trips, one at a time, until `until` settles. */
async function actionLatencies(until: Promise<unknown> | null, count = 400): Promise<number[]> {
  const times: number[] = [];
  let isDone = false;
  until?.then(() => isDone = true);
  while (until ? !isDone : times.length < count) {
    const started = performance.now();
    const res = await fetch(`${api}/api/v1/action`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "SET_CONTROL", params: ["A", Math.random()] }),
    });
    await res.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times;
}

const rows: string[][] = [];
let baseline: Baseline | undefined;

/** The cold and the cached thumbnail; the files made for the action's row. */
async function thumbnailRows(ids: string[]): Promise<void> {
  // Warm up the worker and the route once, on a file the measures do not use.
  await timed(`${api}/thumbnails/demo/${ids[25]}.jpg?size=256`);

  const cold: number[] = [];
  for (const id of ids.slice(0, 5)) {
    const r = await timed(`${api}/thumbnails/demo/${id}.jpg?size=256`);
    if (r.status !== 200) throw new Error(`thumbnail answered ${r.status}`);
    cold.push(r.ms);
  }
  rows.push([
    "cold 1080p JPEG to a 256-pixel thumbnail (5 files)",
    `median ${percentile(cold, 0.5).toFixed(0)} ms, worst ${Math.max(...cold).toFixed(0)} ms`,
    "<= 150 ms",
  ]);

  const cachedUrl = `${api}/thumbnails/demo/${ids[0]}.jpg?size=256`;
  const thumb = await capture(cachedUrl);
  baseline = await startBaseline({ "/image": thumb });
  const baseUrl = `${baseline.url}/image`;
  await load(baseUrl, 1);
  await load(cachedUrl, 1);
  // Paired per round: the baseline and Cueport back to back, the ratio of that round.
  const pairs: Pair[] = [];
  let last = { base: { rps: 0, p99: "" }, ours: { rps: 0, p99: "" } };
  for (let round = 0; round < 3; round++) {
    const base = await load(baseUrl);
    const ours = await load(cachedUrl);
    pairs.push({ baseline: base.rps, measured: ours.rps });
    last = { base, ours };
  }
  rows.push([
    `cached thumbnail (${thumb.bytes.length} bytes), ${
      LOAD_TOOL === "wrk" ? "wrk" : "built-in load"
    } c32, 3 rounds`,
    `ratio to the baseline serving the same bytes (bare Deno.serve), paired per round: median (min-max) ${
      formatRatio(pairedRatio(pairs))
    } (last round ${last.ours.rps.toFixed(0)} vs ${last.base.rps.toFixed(0)} req/s)`,
    ">= 0.5",
  ]);
}

/** The action's latency, idle and while 20 cold thumbnails (of `ids`) are made. */
async function busyRow(ids: string[]): Promise<void> {
  await actionLatencies(null, 200); // warm
  const quiet = await actionLatencies(null, 400);
  const making = Promise.all(
    ids.slice(5, 25).map((id) => timed(`${api}/thumbnails/demo/${id}.jpg?size=200`)),
  );
  const busy = await actionLatencies(making);
  rows.push([
    "POST /api/v1/action, one at a time, while 20 cold thumbnails are made",
    `p50 ${percentile(busy, 0.5).toFixed(2)} ms, p99 ${
      percentile(busy, 0.99).toFixed(2)
    } ms (${busy.length} actions; idle: p50 ${percentile(quiet, 0.5).toFixed(2)}, p99 ${
      percentile(quiet, 0.99).toFixed(2)
    } ms)`,
    "p99 <= 5 ms",
  ]);
}

/** The test pictures need ffmpeg; the waveform's WAV is made here. */
const noFfmpeg = missingPeer("ffmpeg");
try {
  const ids: string[] = [];
  if (noFfmpeg) {
    rows.push([
      "1080p JPEG thumbnails: cold, cached, the action while they are made",
      `skipped: ${noFfmpeg}`,
      "-",
    ]);
  } else {
    for (const path of await jpegs(26)) ids.push(await importFile(path));
    await thumbnailRows(ids);
  }

  const wavId = await importFile(await longWav());
  const wave = await timed(`${api}/waveforms/demo/${wavId}.png`);
  if (wave.status !== 200) throw new Error(`waveform answered ${wave.status}`);
  rows.push([
    "cold waveform of a 5-minute stereo 48 kHz WAV (57.6 MB)",
    `${wave.ms.toFixed(0)} ms`,
    "<= 300 ms",
  ]);

  if (!noFfmpeg) await busyRow(ids);
} finally {
  await baseline?.stop();
  await cueport.stop();
  await Deno.remove(dataDir, { recursive: true });
  await Deno.remove(work, { recursive: true });
}

console.log("\nCueport media benchmark (loopback)\n");
console.log("| scenario | measured | target |\n| --- | --- | --- |");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
const file = here(`./results/media-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
await Deno.mkdir(here("./results"), { recursive: true });
await Deno.writeTextFile(
  file,
  JSON.stringify({ at: new Date().toISOString(), rows }, null, 2) + "\n",
);
console.log(`written to ${file}`);
