/**
 * Software GL from the first start where the machine has no GPU device: `hasGpuDevice()` reads
 * `/dev/dri` and `/dev/nvidia0` (a root of the test's own here), and a supervisor told so starts
 * its very first browser with SwiftShader (a stand-in browser writes down its arguments).
 */
import assert from "node:assert/strict";
import { hasGpuDevice } from "../../../player/output/browser.ts";
import { BrowserSupervisor } from "../../../player/output/supervisor.ts";
import { ProfileDirs } from "../../../player/output/profiles.ts";
import { until } from "../../../tools/testing/until.ts";

/** A root with the files `paths` (under it), for `hasGpuDevice(os, root)`. */
async function rootWith(...paths: string[]): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "cueport-gpu-" });
  for (const path of paths) {
    await Deno.mkdir(`${root}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${root}/${path}`, "");
  }
  return root;
}

Deno.test("hasGpuDevice(): a DRM card or render node, or NVIDIA's device; none in a VM", async () => {
  const cases: [string[], boolean][] = [
    [["dev/dri/renderD128"], true],
    [["dev/dri/card0"], true],
    [["dev/nvidia0"], true],
    [["dev/dri/by-path/none"], false],
    [["dev/null"], false],
  ];
  for (const [paths, want] of cases) {
    const root = await rootWith(...paths);
    try {
      assert.equal(hasGpuDevice("linux", root), want, paths.join(", "));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  }
  const empty = await rootWith();
  try {
    assert.equal(hasGpuDevice("linux", empty), false, "no /dev/dri at all");
    assert.equal(hasGpuDevice("darwin", empty), true, "macOS: taken to have one");
    assert.equal(hasGpuDevice("windows", empty), true, "Windows: taken to have one");
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test({
  name: "BrowserSupervisor with isSoftwareGl starts its first browser with SwiftShader",
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "cueport-fake-browser-" });
    const program = `${dir}/browser`;
    // A browser that writes down its arguments, one start a line, and waits.
    await Deno.writeTextFile(program, `#!/bin/sh\necho "$*" >> "${dir}/args"\nexec sleep 600\n`);
    await Deno.chmod(program, 0o755);
    const profiles = new ProfileDirs(`${dir}/p`, (await Deno.stat(dir)).uid!);
    const supervisor = (isSoftwareGl: boolean) =>
      new BrowserSupervisor({
        profiles,
        runner: { kind: "self" },
        program,
        mode: "window",
        url: "http://127.0.0.1:9/x/",
        width: 640,
        height: 360,
        log: () => {},
        isSoftwareGl,
      });
    const args = async () => (await Deno.readTextFile(`${dir}/args`)).trim().split("\n");
    try {
      for (const isSoftwareGl of [true, false]) {
        const s = supervisor(isSoftwareGl);
        const before = isSoftwareGl ? 0 : 1;
        s.start();
        try {
          await until(
            "the browser's start",
            async () => (await args().catch(() => [])).length > before,
          );
          const first = (await args())[before]!;
          assert.equal(first.includes("--use-angle=swiftshader"), isSoftwareGl, first);
          assert.equal(s.isSoftwareGl, isSoftwareGl);
        } finally {
          await s.close();
        }
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
