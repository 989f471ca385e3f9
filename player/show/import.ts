/**
 * `show.import`: a show file becomes a Project, all or nothing. The slow part
 * (checks, then extraction of the media into `projects/.import-<uuid>/`, each
 * measured against the manifest as it is written) runs beside the order; the
 * commit, in the order, plans the presets against those here then (so two
 * imports staged at once cannot give one id to two presets), writes
 * `project.json`, renames that folder to `projects/<id>/`, then the app adopts
 * it. The presets to add wait in `projects/<id>/presets.pending.json` until the
 * app merges them (at adoption, or at the next start), so a kill at any point
 * leaves either no Project or a whole one, and a start removes what a kill left
 * in `.import-*`.
 * @module
 */
import type { ShowImportParams, ShowImportResult } from "../../protocol/methods.ts";
import type { Preset, PresetImage, Project } from "../../protocol/model.ts";
import { jsonText } from "../../lib/atomic_write.ts";
import {
  checkMeasure,
  type ImageToExtract,
  readBroken,
  readShow,
  showRefusal,
} from "./read_show.ts";
import { measureImage } from "../output/imported_images.ts";
import { PRESET_IMAGES_DIR } from "../../protocol/show_file.ts";
import { freeId, planPresets, type PresetPlan } from "./ids.ts";
import { extractEntry } from "./zip_file.ts";
import { importingRefusal, Refusal } from "../errors.ts";
import { isOnDisk } from "../../lib/on_disk.ts";

/** The prefix of an import's staging folder under `projects/`. */
export const STAGING_PREFIX = ".import-";
/** The prefix under `projects/` of a Project's folder set aside while an import replaces it. */
export const REPLACED_PREFIX = ".replaced-";
/** The file of a Project's folder that holds the presets its import adds, until merged. */
export const PENDING_PRESETS = "presets.pending.json";

/** What an import needs of the app. */
export interface ShowImportHost {
  /** The data dir (`projects/` is under it). */
  dataDir: string;
  /** Every preset here, built-in and user. */
  presets(): readonly Preset[];
  /** Whether a Project of the library has this id (open, closed, damaged or deleted). */
  hasProject(id: string): boolean;
  /** Whether any Clip or the Song of the open Project `id` plays or is paused. */
  isBusy(id: string): boolean;
  /** How many files imports are copying into Project `id` now. */
  importing(id: string): number;
  /** Takes the Project `id` away as a delete does (`replace`). */
  removeProject(id: string): Promise<void>;
  /** Puts the folder a replaced Project `id` left in the trash, restorable until the next start. */
  trash(id: string, folder: string): Promise<void>;
  /** Opens the Project just put in place. */
  adoptProject(id: string): Promise<Project>;
}

/**
 * A show whose media are extracted into its staging folder, waiting for its
 * commit, which plans its presets and writes its `project.json`.
 */
export interface StagedShow {
  staging: string;
  /** The Project and the presets as the show file gives them. */
  project: Project;
  presets: Preset[];
  mediaBytes: number;
}

/** Options of `stageShow`. */
export interface StageShowOptions {
  signal?: AbortSignal;
  /** Bytes of media extracted so far, and in all. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Checks the show file and extracts it into a new staging folder.
 * @throws {Refusal} INVALID_SHOW_FILE naming the entry and what is wrong (the folder is removed)
 */
export async function stageShow(
  params: Pick<ShowImportParams, "path">,
  host: ShowImportHost,
  options: StageShowOptions = {},
): Promise<StagedShow> {
  const show = await readShow(params.path);
  const staging = `${host.dataDir}/projects/${STAGING_PREFIX}${crypto.randomUUID()}`;
  try {
    await Deno.mkdir(`${staging}/media`, { recursive: true });
    const total = show.media.reduce((sum, m) => sum + m.expected.size, 0);
    let done = 0;
    options.onProgress?.(0, total);
    for (const { entry, expected } of show.media) {
      const to = `${staging}/${expected.path}`;
      await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
      const measured = await readBroken(expected.path, () =>
        extractEntry(entry, to, {
          maxBytes: expected.size,
          ...(options.signal ? { signal: options.signal } : {}),
          onBytes: (n) => options.onProgress?.(done += n, total),
        }));
      checkMeasure(expected.path, measured, expected);
    }
    await storeImages(show.images, staging, host.dataDir, options.signal);
    return { staging, project: show.project, presets: show.presets, mediaBytes: total };
  } catch (error) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    throw error;
  } finally {
    await show.zip.close();
  }
}

/**
 * Puts the presets' `IMPORTED` images a show file carries into the preset store's folder
 * (`<dataDir>/preset_images/`): each extracted into the staging folder, measured against the
 * manifest (whose sha256 is the one its preset names, `read_show.ts`) and checked as every
 * imported image is (`checkImage`), then renamed into place. The store is addressed by the bytes'
 * sha256, so an image already there is left as it is, and one put there by an import that then
 * fails is the same checked bytes a preset naming it wants (it stays, unused, until one does).
 */
async function storeImages(
  images: readonly ImageToExtract[],
  staging: string,
  dataDir: string,
  signal?: AbortSignal,
): Promise<void> {
  if (images.length === 0) return;
  const store = `${dataDir}/${PRESET_IMAGES_DIR}`;
  await Deno.mkdir(store, { recursive: true });
  await Deno.mkdir(`${staging}/${PRESET_IMAGES_DIR}`, { recursive: true });
  for (const { entry, expected, image } of images) {
    const name = expected.path.slice(PRESET_IMAGES_DIR.length + 1);
    const there = await Deno.readFile(`${store}/${name}`).catch(() => null);
    if (there?.length === expected.size) {
      checkImage(there, image, expected.path); // the same bytes: still what its preset says?
      continue;
    }
    const to = `${staging}/${expected.path}`;
    const measured = await readBroken(
      expected.path,
      () => extractEntry(entry, to, { maxBytes: expected.size, ...(signal ? { signal } : {}) }),
    );
    checkMeasure(expected.path, measured, expected);
    checkImage(await Deno.readFile(to), image, expected.path);
    await Deno.rename(to, `${store}/${name}`);
  }
  // Not a part of the Project's folder the staging folder becomes.
  await Deno.remove(`${staging}/${PRESET_IMAGES_DIR}`, { recursive: true });
}

/**
 * An image's bytes are a PNG or JPEG within the bounds (`measureImage`, as for every imported
 * image) and what its preset says they are: the output loads them as it is told.
 */
function checkImage(bytes: Uint8Array, image: PresetImage, path: string): void {
  let measured;
  try {
    measured = measureImage(bytes, { name: image.name, path: image.file }, "image");
  } catch (error) {
    throw showRefusal(
      `entry "${path}": ${(error as Error).message.replace(/^Invalid image: /, "")}`,
    );
  }
  const said = [image.mimeType, image.width, image.height].join(" ");
  const is = [measured.mimeType, measured.width, measured.height].join(" ");
  if (said !== is) throw showRefusal(`entry "${path}" is ${is}, its preset says ${said}`);
}

/**
 * Commits a staged show in the order: chooses its id (renamed when taken, or
 * with `replace` the old Project, refused while it plays or is paused unless
 * `force`, taken out of play and its folder set aside
 * as `.replaced-<id>.<n>`), renames the staging folder into place, moves the
 * old folder to the trash (`project.restore` brings it back until the next start) and
 * adopts the new one.
 * A kill between the two renames is undone at start (`recoverImportFolders`).
 */
export async function commitShow(
  staged: StagedShow,
  host: ShowImportHost,
  options: { replace: boolean; force?: boolean },
): Promise<ShowImportResult> {
  const wanted = staged.project.id;
  const projects = `${host.dataDir}/projects`;
  let id = wanted;
  let aside: string | null = null;
  let plan: PresetPlan;
  const replaced = options.replace && host.hasProject(wanted);
  try {
    // Its folder is set aside below: not while imports copy into it, force or not.
    const copying = replaced ? host.importing(wanted) : 0;
    if (copying > 0) throw importingRefusal(wanted, copying, "show.import");
    if (replaced && !options.force && host.isBusy(wanted)) {
      throw new Refusal(
        `Project "${wanted}" is playing: stop it first, or import with force: ` +
          `?force=true over HTTP, "force": true over MCP, --force with cueport show import`,
      );
    }
    if (replaced) {
      aside = `${projects}/${REPLACED_PREFIX}${wanted}.${crypto.randomUUID().slice(0, 8)}`;
      if (!isOnDisk(`${projects}/${wanted}`)) aside = null;
      else await Deno.rename(`${projects}/${wanted}`, aside);
      await host.removeProject(wanted);
    }
    if (!replaced) {
      id = freeId(wanted, (other) => host.hasProject(other) || isOnDisk(`${projects}/${other}`));
    }
    plan = await writePlan(staged, host, id);
    await Deno.rename(staged.staging, `${projects}/${id}`);
  } catch (error) {
    await Deno.remove(staged.staging, { recursive: true }).catch(() => {});
    if (aside) await Deno.rename(aside, `${projects}/${wanted}`).catch(() => {});
    throw error;
  }
  if (aside) await host.trash(wanted, aside);
  await host.adoptProject(id);
  return {
    name: plan.project.name,
    presetsAdded: plan.toAdd.map((p) => p.id),
    presetsRenamed: plan.renamed,
    mediaBytes: staged.mediaBytes,
    projectId: id,
    renamedFrom: id === wanted ? null : wanted,
    replaced,
  };
}

/**
 * Plans the show's presets against those here now (in the order, so an import
 * committed meanwhile counts) and writes the staged `project.json`, under id
 * `id`, and the presets to add (`PENDING_PRESETS`), both synced.
 */
async function writePlan(staged: StagedShow, host: ShowImportHost, id: string) {
  const plan = planPresets(staged.presets, host.presets(), { ...staged.project, id });
  await writeSynced(`${staged.staging}/project.json`, jsonText(plan.project));
  if (plan.toAdd.length > 0) {
    await writeSynced(`${staged.staging}/${PENDING_PRESETS}`, jsonText(plan.toAdd));
  }
  return plan;
}

async function writeSynced(path: string, text: string): Promise<void> {
  await using file = await Deno.open(path, { write: true, create: true, truncate: true });
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
  await file.sync();
}

/**
 * Undoes what a kill left of imports (at start, before loading): staging
 * folders are removed; a replaced Project's folder set aside comes back when
 * its successor was not put in place, else it is removed.
 * @returns how many folders it removed or put back
 */
export async function recoverImportFolders(dataDir: string): Promise<number> {
  const projects = `${dataDir}/projects`;
  let count = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(projects));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
  for (const { name } of entries) {
    if (name.startsWith(STAGING_PREFIX)) {
      await Deno.remove(`${projects}/${name}`, { recursive: true });
      count++;
    } else if (name.startsWith(REPLACED_PREFIX)) {
      const id = name.slice(REPLACED_PREFIX.length, name.lastIndexOf("."));
      if (isOnDisk(`${projects}/${id}`)) {
        await Deno.remove(`${projects}/${name}`, { recursive: true });
      } else await Deno.rename(`${projects}/${name}`, `${projects}/${id}`);
      count++;
    }
  }
  return count;
}
