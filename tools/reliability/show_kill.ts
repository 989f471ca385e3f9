/**
 * Probe `show_kill`: SIGKILL the service (and its player) while a show file
 * is exported and while one is imported, then start it again on the same data
 * dir. The show is the demo with a 16 MB WAV added, so extraction takes a
 * while. Kill points, in turn: mid-export (the first bytes read), mid-upload
 * (half the zip sent, the rest held back) and mid-extract (once the player's
 * `projects/.import-*` staging folder appears; when the import wins the race
 * the point is noted as missed, not failed). After each start: no staging or
 * set-aside folder is left, no upload file, every Project folder is whole
 * (its project.json parses and every media file it names has its size), and
 * the library is as before or holds the one import that committed, whole.
 * Bounded by count: 3 kills in a short run, 9 in a full one.
 * @module
 */
import { encodeWav } from "../../player/media/encode.ts";
import { waitReady } from "./_edit_load.ts";
import { type ServiceRun, withService } from "./_harness.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const KILLS = { short: 3, full: 9 };
/** Polls for a kill point, each 10 ms apart: a bound by count, not by time. */
const POLLS = 500;
const POINTS = ["mid-export", "mid-upload", "mid-extract"] as const;

/** The `show_kill` probe. */
export const showKill: Probe = {
  name: "show_kill",
  summary:
    "SIGKILL the service mid-export, mid-upload and mid-extract of a show file, restart: no partial Project, no staging left",
  run,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function base(run: ServiceRun): string {
  return `http://127.0.0.1:${run.ports.http}`;
}

/** The ids of the library, closed and deleted ones too. */
async function library(run: ServiceRun): Promise<string[]> {
  const res = await fetch(`${base(run)}/api/v1/projects?all=true`);
  const { projects } = await res.json() as { projects: { projectId: string }[] };
  return projects.map((p) => p.projectId).sort();
}

/** The demo with a large WAV added, exported: the show the imports send. */
async function bigShow(run: ServiceRun): Promise<Uint8Array> {
  const wav = encodeWav(new Float32Array(8 * 1024 * 1024), 48_000);
  const up = await fetch(`${base(run)}/api/v1/files/upload?name=long.wav&projectID=demo`, {
    method: "POST",
    body: wav as Uint8Array<ArrayBuffer>,
  });
  if (!up.ok) throw new Error(`Upload of the WAV failed: ${up.status} ${await up.text()}`);
  const res = await fetch(`${base(run)}/api/v1/projects/demo/export`);
  if (!res.ok) throw new Error(`Export failed: ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** Polls `check` up to `POLLS` times; whether it came true. */
async function until(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < POLLS; i++) {
    if (await check()) return true;
    await sleep(10);
  }
  return false;
}

async function names(dir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name);
  } catch {
    return [];
  }
}

/** Starts the kill point's work and resolves once the kill may come; false when it was missed. */
async function reach(run: ServiceRun, point: string, show: Uint8Array): Promise<boolean> {
  if (point === "mid-export") {
    const res = await fetch(`${base(run)}/api/v1/projects/demo/export`);
    const reader = res.body!.getReader();
    await reader.read(); // the first bytes: the zip is being written
    return true;
  }
  const half = Math.floor(show.length / 2);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(show.subarray(0, half));
      if (point === "mid-extract") {
        controller.enqueue(show.subarray(half));
        controller.close();
      } // mid-upload: the rest never comes
    },
  });
  fetch(`${base(run)}/api/v1/projects/import`, {
    method: "POST",
    headers: { "content-type": "application/zip" },
    body,
  }).then((r) => r.body?.cancel()).catch(() => {}); // the kill ends it
  const staged = point === "mid-upload"
    ? async () => (await names(`${run.dataDir}/uploads`)).some((n) => n.endsWith(".upload"))
    : async () => (await names(`${run.dataDir}/projects`)).some((n) => n.startsWith(".import-"));
  return await until(staged);
}

/** What must hold after a start: nothing staged, every Project folder whole. */
async function checkAfter(run: ServiceRun, tally: Tally, before: string[], kill: string) {
  const left = [
    ...(await names(`${run.dataDir}/projects`)).filter((n) => n.startsWith(".")),
    ...(await names(`${run.dataDir}/uploads`)).filter((n) => n.endsWith(".upload")),
  ];
  if (left.length > 0) tally.shortfall(`after ${kill}: left behind: ${left.join(", ")}`);
  for (const id of await names(`${run.dataDir}/projects`)) {
    if (id.startsWith(".")) continue;
    const dir = `${run.dataDir}/projects/${id}`;
    try {
      const project = JSON.parse(await Deno.readTextFile(`${dir}/project.json`));
      for (const file of project.files as { path: string; size: number }[]) {
        const { size } = await Deno.stat(`${dir}/${file.path}`);
        if (size !== file.size) {
          tally.shortfall(`after ${kill}: ${id}/${file.path} is ${size} bytes`);
        }
      }
    } catch (error) {
      tally.shortfall(
        `after ${kill}: Project folder "${id}" is partial: ${(error as Error).message}`,
      );
    }
  }
  const now = await library(run);
  const added = now.filter((id) => !before.includes(id));
  if (before.some((id) => !now.includes(id)) || added.length > 1) {
    tally.shortfall(`after ${kill}: library ${now.join(", ")}, before ${before.join(", ")}`);
  }
  return added;
}

/**
 * The shortfall of kills that each came after their operation was done: none reached its point
 * (mid-export, mid-upload, mid-extract), so no kill tested what the probe is for.
 */
export function unreachedShortfall(reached: number, kills: number): string | null {
  if (reached > 0) return null;
  return `0 of ${kills} kill(s) reached their point (each operation was done first): nothing was tested`;
}

async function run(context: ProbeContext): Promise<void> {
  const { tally, rng } = context;
  const kills = KILLS[context.mode];
  const outcomes: string[] = [];
  let reached = 0;
  await withService(tally, {}, async (run) => {
    const show = await bigShow(run);
    let before = await library(run);
    for (let k = 0; k < kills; k++) {
      const point = POINTS[k % POINTS.length]!;
      const isReached = await reach(run, point, show);
      tally.inputs++; // an operation begun, then killed
      if (isReached) reached++;
      await sleep(rng.range(0, 5));
      await run.kill();
      if (!(await waitReady(run))) throw new Error(`The service was not ready after kill ${k + 1}`);
      const added = await checkAfter(run, tally, before, `kill ${k + 1} (${point})`);
      outcomes.push(
        `${point}${isReached ? "" : " (missed: done first)"}${added.length ? " +1" : ""}`,
      );
      before = [...before, ...added].sort();
    }
    const last = await fetch(`${base(run)}/api/v1/projects/import`, {
      method: "POST",
      headers: { "content-type": "application/zip" },
      body: show as Uint8Array<ArrayBuffer>,
    });
    if (!last.ok) tally.shortfall(`an import after the kills failed: ${await last.text()}`);
    else await last.body?.cancel();
  });
  tally.note(`${outcomes.length} kill(s), ${reached} at their point: ${outcomes.join(", ")}`);
  const unreached = unreachedShortfall(reached, outcomes.length);
  if (unreached !== null) tally.shortfall(unreached);
}
