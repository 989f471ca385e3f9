/**
 * The `load` probe's recording: `RECORD_TOGGLE` `now` as the load starts, the
 * same toggle at its end, then `appState.recording` and the file as ffprobe
 * reads it (`-count_frames`: the video frames it decodes).
 * @module
 */
import { which } from "../peers.ts";

const decoder = new TextDecoder();
const STOPPED_WITHIN_MS = 30_000;

/** POSTs an action from 127.0.0.1; resolves with the status and the body (or null). */
export async function postAction(
  port: number,
  name: string,
  params: unknown = [],
): Promise<{ status: number | null; body: Record<string, unknown> | null }> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/action`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, params }),
      signal: AbortSignal.timeout(STOPPED_WITHIN_MS),
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  } catch {
    return { status: null, body: null };
  }
}

/** `GET /api/v1/app-state`, or null when not answered. */
export async function appState(port: number): Promise<Record<string, unknown> | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/app-state`, {
      signal: AbortSignal.timeout(5000),
    });
    return res.status === 200 ? await res.json() : null;
  } catch {
    return null;
  }
}

/**
 * `appState.recording` once `isDone` says so (default: its state is `idle` again), or the last
 * one read within 30 s (null if none was: the player restarting all along).
 */
export async function recordingWhen(
  port: number,
  isDone: (recording: { state?: unknown }) => boolean = (r) => r.state === "idle",
): Promise<Record<string, unknown> | null> {
  const deadline = performance.now() + STOPPED_WITHIN_MS;
  let last: Record<string, unknown> | null = null;
  while (performance.now() < deadline) {
    const recording = (await appState(port))?.recording;
    if (typeof recording === "object" && recording !== null) {
      last = recording as Record<string, unknown>;
      if (isDone(last)) return last;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return last;
}

/** The file an action's message names (`Recording started: recordings/....webm`), or null. */
export function fileNamed(message: unknown): string | null {
  return typeof message === "string" ? /recordings\/\S+\.webm/.exec(message)?.[0] ?? null : null;
}

/** The video frames ffprobe decodes in `path`, or why it could not. */
export async function videoFramesOf(
  path: string,
): Promise<{ videoFrames: number } | { error: string }> {
  const ffprobe = which("ffprobe");
  if (ffprobe === undefined) return { error: "ffprobe not found (Debian: ffmpeg)" };
  const out = await new Deno.Command(ffprobe, {
    args: [
      ...["-v", "error", "-select_streams", "v:0", "-count_frames"],
      ...["-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path],
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = decoder.decode(out.stdout).trim();
  const frames = Number.parseInt(text, 10);
  if (out.success && Number.isInteger(frames)) return { videoFrames: frames };
  const why = decoder.decode(out.stderr).trim().split("\n").slice(-2).join(" / ");
  return { error: `${path}: ${why || text || `exit ${out.code}`}` };
}
