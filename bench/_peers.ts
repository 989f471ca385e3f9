/**
 * The programs from outside the project that parts of the bench need, looked
 * up through `tools/peers.ts` (the one list of them): a part whose program is
 * missing prints one skipped row with the reason, and the run goes on.
 * @module
 */
import { peer, type PeerName, peerProblem } from "../tools/peers.ts";

/** Why a part cannot run here (`ffmpeg not found (apt-get install ffmpeg)`), or null. */
export function missingPeer(name: PeerName): string | null {
  const problem = peerProblem(name);
  if (problem === null) return null;
  const { debian, why } = peer(name);
  return problem === `${name} not found`
    ? `${problem} (apt-get install ${debian})`
    : `${problem} (${why})`;
}

/**
 * Resident memory of a process in MB (one decimal), through `ps -o rss=` (procps):
 * Deno reads another process's /proc entry only with --allow-all. Null when the
 * process is gone or ps is missing.
 */
export async function rssMb(pid: number): Promise<number | null> {
  try {
    const out = await new Deno.Command("ps", {
      args: ["-o", "rss=", "-p", String(pid)],
      stdout: "piped",
      stderr: "null",
    }).output();
    if (!out.success) return null;
    const kb = Number(new TextDecoder().decode(out.stdout).trim());
    return Number.isFinite(kb) && kb > 0 ? Math.round(kb / 102.4) / 10 : null;
  } catch {
    return null;
  }
}
