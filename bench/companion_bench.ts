/**
 * The Companion module part of `deno task bench`: the built module (`integrations/companion`,
 * run as Companion runs it: a Node child on IPC) connected to Cueport on loopback, and the delay
 * from a change made on the service by another client (`POST /api/v1/action`) to the module's
 * `updateFeedbackValues` carrying the new value, p50 and p99 over 100 changes each: mute (an
 * app-state update) and a Clip started and stopped (a play-state update). Without Node, one
 * skipped line.
 * @module
 */
import { ModuleHost } from "../integrations/companion/deno/host.ts";
import { startCueport } from "./_cueport.ts";
import { missingPeer } from "./_peers.ts";
import { summary } from "./_stats.ts";
import { createDemoProject } from "../player/demo.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";

const here = (path: string) => new URL(path, import.meta.url).pathname;
const CHANGES = 100;
const TITLE = "\nCompanion module (built package in Node, loopback)";

const noNode = missingPeer("node");
if (noNode) {
  console.log(TITLE);
  console.log(`  skipped: ${noNode}`);
  Deno.exit(0);
}

const dataDir = await Deno.makeTempDir({ prefix: "cueport-companion-bench-" });
await writeJsonAtomic(
  `${dataDir}/projects/demo/project.json`,
  await createDemoProject(`${dataDir}/projects/demo`),
);
const cueport = await startCueport(dataDir);
const base = `http://127.0.0.1:${cueport.ports.http}`;
const host = await ModuleHost.start();

async function action(name: string, params: unknown[] = []): Promise<void> {
  const res = await fetch(`${base}/api/v1/action`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, params }),
  });
  if (!res.ok) throw new Error(`${name}: HTTP ${res.status} ${await res.text()}`);
  await res.body?.cancel();
}

/** ms from sending `change` until feedback `id` arrives with `expected`. */
async function delay(id: string, change: () => Promise<void>, expected: unknown): Promise<number> {
  const sentAt = performance.now();
  await change();
  await host.until(
    () => host.feedbackValues.get(id)?.value === expected && host.feedbackTimes.get(id)! >= sentAt,
    `feedback ${id} = ${expected}`,
  );
  return host.feedbackTimes.get(id)! - sentAt;
}

try {
  await host.init({
    bonjour: null,
    host: "127.0.0.1",
    httpPort: cueport.ports.http,
    wsPort: cueport.ports.ws,
    pairingCode: "",
    deviceName: "Companion bench",
  });
  await host.until(() => host.status.status === "ok", "the connection");
  await host.placeFeedbacks({
    muted: { feedbackId: "muted", options: {} },
    clip: { feedbackId: "clip_state", options: { clipID: "clip-rings", state: "playing" } },
  });
  await host.until(
    () => host.feedbackValues.has("muted") && host.feedbackValues.has("clip"),
    "feedbacks",
  );
  const mute: number[] = [];
  const clip: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const muted = host.feedbackValues.get("muted")!.value;
    mute.push(await delay("muted", () => action("MUTE_TOGGLE"), !muted));
    const playing = host.feedbackValues.get("clip")!.value;
    const next = playing
      ? () => action("STOP_CLIP_IN", ["clip-rings"])
      : () => action("TRIGGER_CLIP_IN", ["clip-rings"]);
    clip.push(await delay("clip", next, !playing));
  }
  const result = {
    changes: CHANGES,
    muteToFeedbackMs: summary(mute),
    clipToFeedbackMs: summary(clip),
  };
  console.log(TITLE);
  console.log(
    `  mute over HTTP to the module's feedback: p50 ${result.muteToFeedbackMs.p50} ms, p99 ${result.muteToFeedbackMs.p99} ms (${CHANGES} changes)`,
  );
  console.log(
    `  Clip start/stop over HTTP to the module's feedback: p50 ${result.clipToFeedbackMs.p50} ms, p99 ${result.clipToFeedbackMs.p99} ms (${CHANGES} changes)`,
  );
  const file = here(`./results/companion-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await Deno.mkdir(here("./results"), { recursive: true });
  await Deno.writeTextFile(file, JSON.stringify(result, null, 2) + "\n");
  console.log(`  written to ${file}`);
} finally {
  await host.stop();
  await cueport.stop();
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
}
