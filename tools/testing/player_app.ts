/**
 * A player app opened on a fixture data dir with a virtual clock, for the edits' tests
 * (`tests/player/edits/`): opened, handed to a test, closed and removed whatever happens.
 * @module
 */
import { PlayerApp } from "../../player/app.ts";
import { VirtualClock } from "../../player/clock.ts";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import { fixtureDataDir, fixtureProject } from "./fixture.ts";

/**
 * Runs `fn` with a player app on a fresh fixture data dir (with a second Project `tour`, a
 * copy of the fixture's, when `options.tour`), then closes it and removes the dir.
 * @example
 * ```ts
 * await withApp(async (app) => {
 *   await applyEdits(app, ["song.add", { title: "Encore" }]);
 * });
 * ```
 */
export async function withApp(
  fn: (app: PlayerApp, dataDir: string) => Promise<void>,
  options: { tour?: boolean } = {},
): Promise<void> {
  const dataDir = await fixtureDataDir();
  if (options.tour) {
    const tour = { ...fixtureProject(), id: "tour", name: "Tour" };
    await writeJsonAtomic(`${dataDir}/projects/tour/project.json`, tour);
  }
  const app = await PlayerApp.open({ dataDir, clock: new VirtualClock() });
  try {
    await fn(app, dataDir);
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
}

/** Applies the edits `list` (name, params) to the active Project of `app`, as one batch. */
export function applyEdits(
  app: PlayerApp,
  ...list: Array<[string, Record<string, unknown>]>
): ReturnType<PlayerApp["applyEdits"]> {
  return app.applyEdits({
    projectId: null,
    edits: list.map(([name, params]) => ({ name, params })),
  });
}

/** One edit `name` to Project `projectId` of `app` (the active one when null). */
export function editIn(
  app: PlayerApp,
): (
  projectId: string | null,
  name: string,
  params?: Record<string, unknown>,
) => ReturnType<PlayerApp["applyEdits"]> {
  return (projectId, name, params = {}) => app.applyEdits({ projectId, edits: [{ name, params }] });
}
