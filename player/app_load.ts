/**
 * What the application reads from the data dir at start and at `projects.reload`: the
 * Projects, the settings, the user's presets, the cameras; and the Projects of the trash a
 * restarted player lists as deleted.
 * @module
 */
import { Project } from "../protocol/model.ts";
import type { AppParts } from "./app_parts.ts";
import { checkHistory } from "./edits/history.ts";
import type { OpenProjects } from "./library/open_projects.ts";

/** The parts of the application a load fills. */
export type AppLoadParts = Pick<
  AppParts,
  "store" | "projects" | "editor" | "presets" | "media" | "status" | "recording"
>;

/**
 * Reads the Projects (with their retry keys and the problems of their files and histories),
 * the settings, the user's presets (merging those imports left pending) and the cameras, then
 * opens the Projects the settings do not list as closed and starts the app state afresh.
 */
export async function loadApp(parts: AppLoadParts): Promise<void> {
  const { store, projects, editor, presets } = parts;
  const { projects: docs, problems, appliedKeys } = await store.loadProjects();
  editor.setAppliedKeys(appliedKeys);
  const { value: settings, problem: settingsProblem } = await store.loadSettings();
  const presetsProblem = await presets.load();
  const histories = await Promise.all(docs.map((p) => checkHistory(store.dataDir, p.id)));
  projects.notOpen.noteProblems([...problems, settingsProblem, presetsProblem, ...histories]);
  await parts.media.load();
  for (const doc of docs) await presets.mergePending(doc.id);
  projects.load(docs, settings.closedProjectIds, settings.activeProjectId);
  parts.status.reset(settings, parts.recording.recorder.state);
}

/**
 * Lists the Projects of the trash a restarted player found as deleted (restorable), as they
 * were listed before the restart; one whose id is in the library otherwise is left out.
 */
export async function listDeleted(
  projects: OpenProjects,
  trash: readonly { id: string; dir: string }[],
): Promise<void> {
  for (const { id, dir } of trash) {
    const listed = projects.get(id) || projects.notOpen.entries.some((e) => e.projectId === id);
    if (listed) continue;
    try {
      const project = Project.parse(JSON.parse(await Deno.readTextFile(`${dir}/project.json`)));
      projects.notOpen.list({ ...project, id }, "deleted");
    } catch {
      // A damaged Project deleted: restorable all the same (`project.restore` says how it reads).
    }
  }
}
