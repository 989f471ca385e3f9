/**
 * A player killed with SIGKILL mid-recording leaves a file that plays, its
 * duration in its header within a second of what it holds: the real service
 * and its player process, a headless output, a virtual clock. It waits on the
 * recording's own figures (`appState.recording`), never for time to pass.
 */
import assert from "node:assert/strict";
import { needs } from "../../_helpers/peers.ts";
import { startServiceProcess } from "../../_helpers/service_process.ts";
import { until } from "../../_helpers/until.ts";
import type { Recording } from "../../../protocol/state.ts";

/** The ids of the processes whose parent is `pid` (`ps`: the tests may not read /proc). */
async function childrenOf(pid: number): Promise<number[]> {
  const out = await new Deno.Command("ps", { args: ["-o", "pid=", "--ppid", String(pid)] })
    .output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l.trim()).map(Number);
}

async function descendantsOf(pid: number): Promise<number[]> {
  const direct = await childrenOf(pid);
  return [...direct, ...(await Promise.all(direct.map(descendantsOf))).flat()];
}

async function command(pid: number): Promise<string> {
  const out = await new Deno.Command("ps", { args: ["-o", "args=", "-p", String(pid)] }).output();
  return new TextDecoder().decode(out.stdout);
}

/** What ffprobe reads: the header's duration, and the time of the last packet, seconds. */
async function probe(
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
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const json = JSON.parse(new TextDecoder().decode(out.stdout));
  const packets = json.packets as { pts_time: string; codec_type: string }[];
  return {
    duration: Number(json.format.duration),
    lastPacket: Math.max(...packets.map((p) => Number(p.pts_time))),
    video: packets.filter((p) => p.codec_type === "video").length,
  };
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "A player killed mid-recording leaves a WebM that plays, its duration in its header",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const service = await startServiceProcess(["--output", "headless", "--virtual-clock"]);
    const base = `http://127.0.0.1:${service.ready.ports.http}`;
    /** The recording's state; null while the player is down (503). */
    const recording = async () => {
      const { status, body } = await service.get("/api/v1/app-state");
      return status === 200 ? body.recording as Recording : null;
    };
    let doomed: number[] = [];
    try {
      const answer = await fetch(`${base}/api/v1/action`, {
        method: "POST",
        body: JSON.stringify({ name: "RECORD_TOGGLE" }),
      });
      assert.equal(answer.status, 200, await answer.text());
      // A busy machine loads the page slowly: the bound is for a hang, not for speed.
      let seen: Recording | null = null;
      await until("the recording to hold 2 s of pictures", async () => {
        seen = await recording();
        return seen !== null && seen.seconds >= 2 && seen.videoFrames >= 10;
      }, 180_000);
      const before = seen! as Recording;
      const player = (await childrenOf(service.child.pid)).find(() => true);
      assert.ok(player, "the player process");
      assert.match(await command(player), /player/);
      doomed = await descendantsOf(player);
      Deno.kill(player, "SIGKILL");
      // The browser the player started goes too (a crash takes what it supervised).
      for (const pid of doomed) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch {
          // gone with it
        }
      }
      const path = `${service.dataDir}/${before.file}`;
      const { duration, lastPacket, video } = await probe(path);
      assert.ok(
        video >= before.videoFrames,
        `${video} video frames, ${before.videoFrames} counted`,
      );
      assert.ok(
        duration >= before.seconds - 0.1,
        `file ${duration} s, counted ${before.seconds} s`,
      );
      assert.ok(
        Math.abs(duration - lastPacket) <= 1,
        `header ${duration} s, plays ${lastPacket} s`,
      );
      // The restarted player says what became of it.
      await until("the restarted player to report the recording", async () => {
        const after = await recording();
        return after?.state === "idle" && after.file === before.file && after.error !== null;
      }, 180_000);
      assert.match((await recording())!.error!, /^The player stopped during this recording/);
    } finally {
      await service.stop();
    }
  },
});
