/**
 * Camera discovery: Linux video devices from sysfs, plus a synthetic
 * test-pattern camera that is always present so a show machine without a
 * camera still has one to address.
 * @module
 */
import type { Camera } from "../protocol/state.ts";

/** The synthetic camera, always listed last. */
export const TEST_PATTERN_CAMERA: Camera = {
  deviceId: "test-pattern",
  label: "Test Pattern (synthetic)",
  isDefault: false,
};

/** Lists cameras; the first real device is the default, else the test pattern. */
export async function listCameras(sysRoot = "/sys/class/video4linux"): Promise<Camera[]> {
  const cameras: Camera[] = [];
  if (Deno.build.os === "linux") {
    try {
      const names: string[] = [];
      for await (const entry of Deno.readDir(sysRoot)) names.push(entry.name);
      names.sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      for (const name of names) {
        if (!/^video\d+$/.test(name)) continue;
        const label = await Deno.readTextFile(`${sysRoot}/${name}/name`).then(
          (s) => s.trim(),
          () => name,
        );
        cameras.push({ deviceId: name, label, isDefault: cameras.length === 0 });
      }
    } catch {
      // No video4linux on this machine: only the synthetic camera.
    }
  }
  return [...cameras, { ...TEST_PATTERN_CAMERA, isDefault: cameras.length === 0 }];
}
