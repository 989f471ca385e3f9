/**
 * What the recording tests look at from outside: the processes a service
 * runs (`ps`: the tests may not read /proc), and what ffprobe reads of a
 * recorded file.
 * @module
 */
import assert from "node:assert/strict";

/** A process: its id and command line. */
export interface ProcessInfo {
  pid: number;
  args: string;
}

/** The processes whose parent is `pid`. */
export async function childrenOf(pid: number): Promise<ProcessInfo[]> {
  const out = await new Deno.Command("ps", { args: ["-o", "pid=,args=", "--ppid", String(pid)] })
    .output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l.trim()).map((l) => {
    const [id, ...args] = l.trim().split(/\s+/);
    return { pid: Number(id), args: args.join(" ") };
  });
}

/** The processes below `pid`, children first. */
export async function descendantsOf(pid: number): Promise<ProcessInfo[]> {
  const direct = await childrenOf(pid);
  return [...direct, ...(await Promise.all(direct.map((c) => descendantsOf(c.pid)))).flat()];
}

/** What ffprobe reads: the header's duration, the time of the last packet (s), video packets. */
export async function probeRecording(
  path: string,
): Promise<{ duration: number; lastPacket: number; video: number }> {
  const out = await new Deno.Command("ffprobe", {
    args: [
      ...["-v", "error", "-show_entries", "format=duration:packet=pts_time,codec_type"],
      ...["-of", "json", path],
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const json = JSON.parse(new TextDecoder().decode(out.stdout) || "{}");
  assert.ok(json.format, `ffprobe cannot read ${path}: ${new TextDecoder().decode(out.stderr)}`);
  const packets = json.packets as { pts_time: string; codec_type: string }[];
  return {
    duration: Number(json.format.duration),
    lastPacket: Math.max(...packets.map((p) => Number(p.pts_time))),
    video: packets.filter((p) => p.codec_type === "video").length,
  };
}
