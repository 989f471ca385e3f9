/**
 * What the application reads from the data dir at start and at `projects.reload`: the
 * Projects, the settings, the user's presets, the cameras; the Projects of the trash a
 * restarted player lists as deleted; and the start itself (`openApp`).
 * @module
 */
import { PRIMARY_DISPLAY } from "../protocol/action_rules.ts";
import { Project } from "../protocol/model.ts";
import { FULL_REGION_TEXT, parseRegion } from "../protocol/region.ts";
import type { AppParts } from "./app_parts.ts";
import { checkHistory } from "./edits/history.ts";
import type { OpenProjects } from "./library/open_projects.ts";
import { tidyDataDir } from "./library/tidy.ts";
import type { PlayerOptions } from "./player_options.ts";

/**
 * The start of the application on its data dir: removes the partial copies of imports and the
 * temp files of writes a previous run did not finish, loads everything (the demo Project on the
 * first start), lists the trash's Projects as deleted, and resumes the show that run left
 * (`live_state.ts`); the `outputDisplay` and `outputRegion` settings, given, choose the output's
 * display and region at each start (docs/output.md).
 */
export async function openApp(parts: AppParts, options: PlayerOptions): Promise<void> {
  const info = (message: string) => options.log?.("info", message);
  await tidyDataDir(parts.store, info, options.serviceStartedAt);
  const trash = await parts.lifecycle.loadTrash();
  await loadApp(parts);
  await listDeleted(parts.projects, trash);
  const output = await parts.live.restore();
  parts.status.resume({ ...output, recording: parts.recording.recorder.state });
  const display = options.output?.display ?? PRIMARY_DISPLAY;
  if (display !== PRIMARY_DISPLAY) parts.status.resume({ outputDisplay: display });
  const region = options.output?.region ?? FULL_REGION_TEXT;
  if (region !== FULL_REGION_TEXT) parts.status.resume({ outputRegion: parseRegion(region) });
}

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
