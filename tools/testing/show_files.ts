/** Show files built in memory for tests (`protocol/show_file.ts`), with a true manifest. */
import { Uint8ArrayReader, Uint8ArrayWriter, ZipWriter } from "@zip.js/zip.js";
import type { Preset, Project } from "../../protocol/model.ts";

/** The sha256 of bytes, lower-case hex. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A zip of `entries`, in their order. */
export async function zipOf(entries: Map<string, Uint8Array>): Promise<Uint8Array> {
  const writer = new ZipWriter(new Uint8ArrayWriter());
  for (const [path, data] of entries) await writer.add(path, new Uint8ArrayReader(data));
  return await writer.close();
}

/** A show file of `project` with `presets` and `media` (path to bytes), its manifest last. */
export async function buildShowFile(
  project: Project,
  presets: readonly Preset[] = [],
  media: Record<string, Uint8Array> = {},
): Promise<Uint8Array> {
  const text = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  const entries = new Map<string, Uint8Array>([
    ["project.json", text(project)],
    ["presets.json", text(presets)],
    ...Object.entries(media),
  ]);
  const manifest = {
    format: "cueport-show",
    version: 1,
    createdAt: new Date().toISOString(),
    cueportVersion: "test",
    project: { id: project.id, name: project.name, revision: project.revision },
    entries: await Promise.all(
      [...entries].map(async ([path, data]) => ({
        path,
        size: data.length,
        sha256: await sha256Hex(data),
      })),
    ),
  };
  entries.set("manifest.json", text(manifest));
  return await zipOf(entries);
}
