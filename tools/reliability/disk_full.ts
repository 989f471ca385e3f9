/**
 * Probe `disk_full` (issue 40): the service's data dir is a small tmpfs
 * (mounted before the service first starts there, unmounted after), filled by
 * the probe to 1 MB short of full, then a recording starts (`RECORD_TOGGLE`
 * `now`) while a local client sends a keyed `song.add` every 250 ms. The
 * recording fills the disk. Then: the player must have stayed up (no restart:
 * the harness and `/health` `playerRestarts`), `appState.recording` must say
 * the recording ended for lack of space (`error`), ffprobe must read the file,
 * an edit on the full disk must answer `DISK_FULL` (507, never 500), and once
 * space is freed and the service restarted every edit answered 200 must be in
 * the Project. Not root, or no ffprobe: NOT RUN.
 * @module
 */
import { onKill } from "./_children.ts";
import { EditLoad, songsFromService, waitReady } from "./_edit_load.ts";
import type { ServiceRun } from "./_harness.ts";
import { fileNamed, postAction, recordingWhen, videoFramesOf } from "./_load_recording.ts";
import { playerRestarts, sleep, withShow } from "./_output_show.ts";
import { shell } from "./_process_tree.ts";
import { which } from "../peers.ts";
import { NotRun, type Probe, type ProbeContext } from "./_types.ts";
import type { Tally } from "./_tally.ts";

const TMPFS_MB = 32;
/** What the filler leaves free for the recording to fill. */
const LEFT_FREE_BYTES = 256 * 1024;
const FILLER = "probe-filler.bin";
/**
 * The recording must have ended once its bytes stop growing for this long (the disk full): it
 * is watched by its progress, not for a time (beside stress-ng the page drew 0.2 frames a
 * second, the file grew 0.5 kB a second, and filling the 256 KiB left takes minutes).
 */
const FULL_WITHIN_MS = 45_000;

/** The `disk_full` probe. */
export const diskFull: Probe = {
  name: "disk_full",
  summary:
    "a tmpfs data dir that fills during a recording: player up, recording failed for lack of space, ffprobe reads it, edits DISK_FULL (not 500), nothing acknowledged lost",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  if (Deno.uid() !== 0) throw new NotRun("needs root to mount a tmpfs");
  if (which("ffprobe") === undefined) throw new NotRun("ffprobe not found (Debian: ffmpeg)");
  let mounted: string | null = null;
  let forget = () => {};
  const prepare = async (dir: string) => {
    const out = await new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", `size=${TMPFS_MB}m,mode=0700`, "tmpfs", dir],
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new NotRun(`mount -t tmpfs failed: ${new TextDecoder().decode(out.stderr).trim()}`);
    }
    mounted = dir;
    forget = onKill(() => void new Deno.Command("umount", { args: ["-l", dir] }).outputSync());
  };
  try {
    await withShow(tally, (svc) => fill(svc, tally), { prepare });
  } finally {
    if (mounted !== null) {
      await new Deno.Command("umount", { args: ["-l", mounted] }).output();
      await Deno.remove(mounted, { recursive: true }).catch(() => {});
      forget();
    }
  }
}

/** Fills the disk with a recording under edits; judges. */
async function fill(svc: ServiceRun, tally: Tally): Promise<void> {
  const port = svc.ports.http;
  const restartsBefore = await playerRestarts(port);
  const filler = `${svc.dataDir}/${FILLER}`;
  const started = await postAction(port, "RECORD_TOGGLE", ["now"]);
  tally.note(
    `RECORD_TOGGLE now answered ${started.status}: ${
      String(started.body?.message ?? "").slice(0, 120)
    }`,
  );
  // The disk fills once the recording holds a picture: on a busy machine its first chunk may come
  // after the edits took the space left ("Nothing was recorded", the empty file removed).
  const first = await firstFrame(port);
  tally.note(`the recording's first frame: ${first ? "written" : "none while the page drew"}`);
  const free = Number((await shell('df -B1 --output=avail "$1" | tail -1', [svc.dataDir])).trim());
  await Deno.writeFile(filler, new Uint8Array(Math.max(0, free - LEFT_FREE_BYTES)));
  const edits = new EditLoad(svc, tally, { clients: 1, prefix: "disk edit", everyMs: 250 });
  const recording = await waitRecordingEnded(port);
  await sleep(2000); // edits on the full disk
  const onFull = await editOnce(port);
  await edits.stop();
  const restartsAfter = await playerRestarts(port);
  tally.note(`/health playerRestarts ${restartsBefore} before, ${restartsAfter} after`);
  if (restartsAfter !== restartsBefore) {
    tally.shortfall(
      `the player restarted (/health playerRestarts ${restartsBefore} to ${restartsAfter})`,
    );
  }
  judgeRecording(recording, tally, svc.service.stderrTail());
  const file = typeof recording?.file === "string"
    ? recording.file
    : fileNamed(started.body?.message);
  const probed = file === null
    ? { error: "no file named" }
    : await videoFramesOf(`${svc.dataDir}/${file}`);
  tally.note(`ffprobe: ${JSON.stringify(probed).slice(0, 200)}`);
  if (!("videoFrames" in probed) || probed.videoFrames === 0) {
    tally.shortfall(
      `ffprobe could not read the recording: ${JSON.stringify(probed).slice(0, 160)}`,
    );
  }
  tally.note(`an edit on the full disk answered ${onFull.status} ${onFull.code}`);
  if (onFull.status !== 507 || onFull.code !== "DISK_FULL") {
    tally.shortfall(
      `an edit on the full disk answered ${onFull.status} ${onFull.code} (target 507 DISK_FULL)`,
    );
  }
  await Deno.remove(filler).catch(() => {});
  await svc.restart();
  if (!(await waitReady(svc))) throw new Error("The player was not ready after the restart");
  const audit = edits.audit(await songsFromService(svc));
  tally.acked = edits.acked.size;
  tally.lost = audit.missing.length;
  tally.duplicates = audit.duplicates;
  const refused = [...edits.refused.values()];
  tally.note(
    `${edits.sent} keyed edits: ${edits.acked.size} answered 200, ${refused.length} refused (${
      [...new Set(refused)].join(", ")
    }), ${audit.missing.length} acknowledged missing after the restart`,
  );
}

/**
 * Whether the recording wrote its first frame, waited for while the page draws (its frames
 * drawn while recording grow); false after 45 s without either.
 */
async function firstFrame(port: number): Promise<boolean> {
  let progressAt = performance.now();
  let drawn: unknown = null;
  while (performance.now() - progressAt < FULL_WITHIN_MS) {
    const now = await recordingWhen(port, () => true);
    if (now?.state !== "recording") return false;
    if (Number(now.videoFrames) > 0) return true;
    if (now.framesDrawn !== drawn) [drawn, progressAt] = [now.framesDrawn, performance.now()];
    await sleep(500);
  }
  return false;
}

/**
 * `appState.recording` once it no longer records, or the last read once its bytes did not grow
 * for 45 s.
 */
async function waitRecordingEnded(port: number): Promise<Record<string, unknown> | null> {
  let grewAt = performance.now();
  let last: Record<string, unknown> | null = null;
  while (performance.now() - grewAt < FULL_WITHIN_MS) {
    const now = await recordingWhen(port, () => true);
    if (now !== null && now.state !== "recording") return now;
    if (now !== null && now.bytes !== last?.bytes) grewAt = performance.now();
    last = now ?? last;
    await sleep(500);
  }
  return last;
}

/**
 * Judges how the recording ended; one that ended otherwise than for lack of space is noted with
 * what the player said of its output meanwhile (`log`, the service's stderr tail: a browser
 * started again, a page socket closed and its code), so a MISSED names its cause.
 */
function judgeRecording(
  recording: Record<string, unknown> | null,
  tally: Tally,
  log: string,
): void {
  tally.note(`appState.recording: ${JSON.stringify(recording).slice(0, 300)}`);
  if (recording === null) tally.shortfall("appState.recording was not readable");
  else if (recording.state === "recording") {
    tally.shortfall(
      `the recording still ran, its file not growing for ${
        FULL_WITHIN_MS / 1000
      } s, on a disk nearly full`,
    );
  } else if (!/space|full|ENOSPC|DISK_FULL/i.test(String(recording.error ?? ""))) {
    const said = log.split("\n").filter((l) => /Output:|output browser/.test(l)).slice(-8);
    tally.note(`the player said of its output: ${said.join(" / ").slice(0, 1500)}`);
    tally.shortfall(
      `appState.recording does not say it failed for lack of space (error: ${
        JSON.stringify(recording.error ?? null)
      })`,
    );
  }
}

/** One `song.add` from 127.0.0.1: its status and error code. */
async function editOnce(port: number): Promise<{ status: number | null; code: string | null }> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/edit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "song.add", params: { title: "disk probe on a full disk" } }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = await res.json().catch(() => null);
    return { status: res.status, code: body?.error?.code ?? null };
  } catch {
    return { status: null, code: null };
  }
}
