/**
 * Faults around a real recording (the service and its player process, a
 * headless output): a recordings folder on a small tmpfs that fills, and a
 * browser killed mid-recording. Each leaves a file ffprobe reads whose header
 * says what plays, and a state that says what became of the recording; the
 * player stays up. It waits on the recording's own figures, never for time.
 */
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import {
  type ServiceProcess,
  startServiceProcess,
} from "../../../tools/testing/service_process.ts";
import { mountTmpfs } from "../../../tools/testing/tmpfs.ts";
import { untilProgress } from "../../../tools/testing/until.ts";
import {
  childrenOf,
  descendantsOf,
  probeRecording as probe,
} from "../../../tools/testing/recorded.ts";
import type { Recording } from "../../../protocol/state.ts";

/** The recording's state; null while the player is down (503). */
async function recordingOf(service: ServiceProcess): Promise<Recording | null> {
  const { status, body } = await service.get("/api/v1/app-state");
  return status === 200 ? body.recording as Recording : null;
}

async function toggle(service: ServiceProcess): Promise<{ status: number; message: string }> {
  const answer = await fetch(`http://127.0.0.1:${service.ready.ports.http}/api/v1/action`, {
    method: "POST",
    body: JSON.stringify({ name: "RECORD_TOGGLE" }),
  });
  const body = await answer.json();
  return { status: answer.status, message: body.message ?? JSON.stringify(body) };
}

/** The player process of the service. */
async function playerOf(service: ServiceProcess): Promise<number> {
  const player = (await childrenOf(service.child.pid)).find((c) => /player/.test(c.args));
  assert.ok(player, "the player process");
  return player.pid;
}

/**
 * What moves while the output works: the recording's bytes and the frames its page reports
 * drawn and missed (a report a second, however starved the page). A wait fails only once none of
 * them moved for a minute (`untilProgress`), never for the time a busy machine takes.
 */
function progressOf(recording: Recording | null): string {
  if (recording === null) return "player down";
  return `${recording.state} ${recording.bytes} ${recording.framesDrawn} ${recording.framesMissed}`;
}

/** `wait`, whose failure names what the player said of its output (a restart, a socket closed). */
async function saying(service: ServiceProcess, wait: Promise<void>): Promise<void> {
  try {
    await wait;
  } catch (error) {
    const said = service.stderr().split("\n").filter((l) => /Output|output browser/.test(l));
    throw new Error(`${(error as Error).message}; the player said:\n${said.slice(-20).join("\n")}`);
  }
}

// One frame of the recording at its slowest (the output draws 8 frames a second at load).
const FRAME_S = 0.125;

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name:
    "A recordings folder whose disk fills: the recording fails saying so, the file plays, the player stays up",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const service = await startServiceProcess(["--output", "headless", "--virtual-clock"]);
    // Small: the demo's picture records at a few tens of kB a second.
    const disk = await mountTmpfs("192k", `${service.dataDir}/recordings`);
    try {
      const player = await playerOf(service);
      const started = await toggle(service);
      assert.equal(started.status, 200, started.message);
      // A busy machine loads the page slowly: the wait is a hang guard on the recording's progress.
      let ended: Recording | null = null;
      await saying(
        service,
        untilProgress("the recording to end on the full disk", async () => {
          ended = await recordingOf(service);
          return ended !== null && ended.state === "idle" && ended.error !== null;
        }, { progress: () => progressOf(ended) }),
      );
      const recording = ended! as Recording;
      assert.match(
        recording.error!,
        new RegExp(
          `^The recording failed at [0-9.]+ s: the disk of ${disk.dir} is full: free space`,
        ),
        service.stderr().slice(-4000),
      );
      assert.equal(await playerOf(service), player, "the player stayed up");
      assert.ok(recording.file, "the file is kept");
      const { duration, lastPacket } = await probe(`${service.dataDir}/${recording.file}`);
      assert.ok(recording.videoFrames > 0);
      assert.equal(duration, recording.seconds, "the header says what was counted");
      assert.ok(
        Math.abs(duration - lastPacket) <= FRAME_S,
        `header ${duration} s, plays ${lastPacket} s`,
      );
      // The next toggle starts one on the full disk, which fails and says so.
      const again = await toggle(service);
      assert.equal(again.status, 200, again.message);
      assert.doesNotMatch(again.message, /Recording stopped/);
    } finally {
      await service.stop();
      await disk.close();
    }
  },
});

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "A browser killed mid-recording: the header says exactly what plays",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const service = await startServiceProcess(["--output", "headless", "--virtual-clock"]);
    try {
      const started = await toggle(service);
      assert.equal(started.status, 200, started.message);
      let seen: Recording | null = null;
      await saying(
        service,
        untilProgress("the recording to hold 2 s of pictures", async () => {
          seen = await recordingOf(service);
          return seen !== null && seen.seconds >= 2 && seen.videoFrames >= 10;
        }, { progress: () => progressOf(seen) }),
      );
      const file = (seen! as Recording).file!;
      const browsers = (await descendantsOf(await playerOf(service)))
        .filter((p) => /chrom/i.test(p.args));
      assert.ok(browsers.length > 0, "the browser's processes");
      for (const { pid } of browsers) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch {
          // gone with its parent
        }
      }
      let now: Recording | null = null;
      await saying(
        service,
        untilProgress("the recording to end with its browser", async () => {
          now = await recordingOf(service);
          return now !== null && now.state === "idle";
        }, { progress: () => progressOf(now) }),
      );
      const ended = (await recordingOf(service))!;
      assert.match(ended.error ?? "", /went away/);
      const { duration, lastPacket } = await probe(`${service.dataDir}/${file}`);
      assert.equal(duration, ended.seconds, "the header says what was counted");
      assert.ok(
        Math.abs(duration - lastPacket) <= FRAME_S,
        `header ${duration} s, plays ${lastPacket} s`,
      );
    } finally {
      await service.stop();
    }
  },
});
