/**
 * A player killed with SIGKILL mid-recording leaves a file that plays, its
 * duration in its header within a second of what it holds: the real service
 * and its player process, a headless output, a virtual clock. It waits on the
 * recording's own figures (`appState.recording`), never for time to pass.
 */
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import { startServiceProcess } from "../../../tools/testing/service_process.ts";
import { until } from "../../../tools/testing/until.ts";
import {
  childrenOf,
  descendantsOf,
  probeRecording as probe,
} from "../../../tools/testing/recorded.ts";
import type { Recording } from "../../../protocol/state.ts";

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
      assert.match(player.args, /player/);
      doomed = (await descendantsOf(player.pid)).map((p) => p.pid);
      Deno.kill(player.pid, "SIGKILL");
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
