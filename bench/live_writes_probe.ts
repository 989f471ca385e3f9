/**
 * How many times the player writes its live state (`live.json`) under the action load
 * (`SET_CONTROL A 0.5` at 32 connections, the demo Project stopped), on this checkout and,
 * with `--before DIR`, on another: each atomic write replaces the file, so its inode changes
 * (docs/load.md, issue 42).
 *
 * `deno run -A bench/live_writes_probe.ts --before /tmp/main-copy --seconds 3`
 * @module
 */
import { parseArgs } from "node:util";
import { createDemoProject } from "../player/demo.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import type { BenchService } from "./_cueport.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { before: { type: "string" }, seconds: { type: "string", default: "3" } },
});
const here = (path: string) => new URL(path, import.meta.url).pathname;
const BODY = JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] });

/** The writes of `live.json` seen while the load runs on the checkout at `root`. */
async function probe(root: string): Promise<{ writes: number; requests: number }> {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-live-" });
  await writeJsonAtomic(
    `${dataDir}/projects/demo/project.json`,
    await createDemoProject(`${dataDir}/projects/demo`),
  );
  const { startCueport } = await import(`${root}/bench/_cueport.ts`);
  const service: BenchService = await startCueport(dataDir);
  const inodes = new Set<number>();
  let isLoading = true;
  const watch = (async () => {
    while (isLoading) {
      try {
        inodes.add(Deno.statSync(`${dataDir}/live.json`).ino ?? 0);
      } catch {
        // not written yet, or between the rename's two steps
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-net",
        here("./load.ts"),
        `http://127.0.0.1:${service.ports.http}/api/v1/action`,
        "POST",
        BODY,
        "32",
        values.seconds!,
      ],
    }).output();
    isLoading = false;
    await watch;
    const requests = JSON.parse(new TextDecoder().decode(out.stdout)).requests;
    return { writes: inodes.size, requests };
  } finally {
    await service.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
}

for (const [name, root] of [["after", here("..")], ["before", values.before]] as const) {
  if (root === undefined) continue;
  const { writes, requests } = await probe(root);
  console.log(`${name}: ${writes} writes of live.json in ${values.seconds} s, ${requests} actions`);
}
