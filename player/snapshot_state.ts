/**
 * The state a rig group's snapshot holds (docs/rigs.md, "Snapshots and a bounded log"), captured
 * and replaced whole (`projects.capture`, `projects.replace`, player protocol 1.16): every Project
 * of the data dir as its `project.json` holds it (with the retry keys of its edits, so an entry is
 * applied once after a restore too), the user presets and the Projects closed. Media files are
 * not in it (a group copies them by hash, `server/rigs/media_*.ts`, and places a snapshot's files
 * before it replaces the Projects, `server/rigs/snapshot_media.ts`), nor the settings of the
 * machine or its active Project.
 * @module
 */
import type { ProjectsState } from "../protocol/methods.ts";
import { Preset, Project } from "../protocol/model.ts";
import { RpcError, RpcErrorCode } from "../protocol/jsonrpc.ts";
import { jsonText, writeFilesAtomic } from "../lib/atomic_write.ts";
import { KEEP_GENERATIONS } from "../lib/kept_copies.ts";
import { readAppliedKeys } from "./applied_keys.ts";
import type { PlayerApp } from "./app.ts";
import { z } from "zod";

/** What a capture and a replace use of the application. */
export type SnapshotApp = Pick<
  PlayerApp,
  "store" | "library" | "keepInTrash" | "reload" | "removeProject" | "adoptProject"
>;

/**
 * Every Project on disk (open or closed; a damaged one with no good copy left out), the user
 * presets and the closed Projects, as the files hold them once pending writes landed.
 */
export async function captureProjects(app: SnapshotApp): Promise<ProjectsState> {
  const { store } = app;
  const projects: ProjectsState["projects"] = [];
  for (const id of await projectFolders(store.dataDir)) {
    try {
      const read = await store.readProject(id);
      projects.push({ ...read.project, appliedKeys: read.appliedKeys });
    } catch {
      // Damaged with no good kept copy: listed damaged on this rig, not replicated.
    }
  }
  projects.sort((a, b) => a.id.localeCompare(b.id));
  const presets = (await store.loadUserPresets()).value;
  const closedProjectIds = app.library().filter((e) => e.state === "closed")
    .map((e) => e.projectId).sort();
  return { projects, presets, closedProjectIds };
}

/**
 * Writes `state` in place of every Project and the user presets: the Projects' files and
 * `presets.json` in one atomic write (all temp files synced, then the renames), the Projects
 * not in it moved to the trash; `reload` then reads them all (every client gets a `full`
 * update), and the Projects are opened or closed as in `state`. The number of Projects now.
 * @throws {RpcError} INVALID_PARAMS naming the Project or preset that does not read
 */
export async function replaceProjects(
  app: SnapshotApp,
  state: ProjectsState,
): Promise<{ projects: number }> {
  const { store } = app;
  const docs = state.projects.map((raw) => {
    const parsed = Project.safeParse(raw);
    if (!parsed.success) throw invalid(`Project "${raw.id}"`, parsed.error);
    return { ...parsed.data, appliedKeys: readAppliedKeys(raw) };
  });
  const presets = z.array(Preset).safeParse(state.presets);
  if (!presets.success) throw invalid("the presets", presets.error);
  const wanted = new Set(docs.map((d) => d.id));
  for (const doc of docs) {
    await Deno.mkdir(`${store.projectDir(doc.id)}/media`, { recursive: true });
  }
  await writeFilesAtomic([
    { path: `${store.dataDir}/presets.json`, data: jsonText(presets.data) },
    ...docs.map(({ appliedKeys, ...project }) => ({
      path: `${store.projectDir(project.id)}/project.json`,
      data: jsonText(appliedKeys.length ? { ...project, appliedKeys } : project),
    })),
  ], { ...store.hooks, keep: KEEP_GENERATIONS });
  for (const id of await projectFolders(store.dataDir)) {
    if (!wanted.has(id)) await app.keepInTrash(id, store.projectDir(id));
  }
  await app.reload();
  const closed = new Set(state.closedProjectIds);
  for (const entry of app.library()) {
    const id = entry.projectId;
    if (entry.state === "open" && closed.has(id)) app.removeProject(id, "closed");
    if (entry.state === "closed" && !closed.has(id)) await app.adoptProject(id, "opened");
  }
  return { projects: docs.length };
}

/** The Project folders of the data dir (not the staging ones, which start with a dot). */
async function projectFolders(dataDir: string): Promise<string[]> {
  const ids: string[] = [];
  try {
    for await (const entry of Deno.readDir(`${dataDir}/projects`)) {
      if (entry.isDirectory && !entry.name.startsWith(".")) ids.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return ids;
}

function invalid(what: string, error: z.ZodError): RpcError {
  const issue = error.issues[0]!;
  return new RpcError(
    RpcErrorCode.INVALID_PARAMS,
    `Invalid params for projects.replace: ${what}: ${issue.path.join(".")}: ${issue.message}`,
  );
}
