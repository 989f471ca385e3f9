/**
 * Queries over the socket, so a control surface needs no second
 * connection. Each name maps to the same core query as its HTTP route.
 * @module
 */
import { type Core, CueportError } from "../core/mod.ts";

/** Parameters a query may take. */
export interface QueryParams {
  projectId?: string | undefined;
  songId?: string | undefined;
  ids?: string[] | undefined;
  kind?: string | undefined;
  presetId?: string | undefined;
}

function need(value: string | undefined, name: string): string {
  if (!value) {
    throw new CueportError("INVALID_MESSAGE", `Invalid params.${name}: is required`, {
      field: `params.${name}`,
    });
  }
  return value;
}

/** Runs a named query; the answer has the shape of the matching HTTP route. */
export function runQuery(core: Core, query: string, p: QueryParams): unknown {
  const q = core.queries;
  const project = () => need(p.projectId ?? core.model.activeProjectId ?? undefined, "projectId");
  switch (query) {
    case "projects":
      return { projects: q.projects() };
    case "project":
      return q.project(project());
    case "summary":
      return q.summary(project());
    case "playstate":
      return q.playstate(project());
    case "active":
      return q.active();
    case "appState":
      return q.appState();
    case "songs":
      return { songs: q.songs(project()) };
    case "song":
      return q.song(project(), need(p.songId, "songId"));
    case "clips":
      if (!p.ids?.length) {
        throw new CueportError("INVALID_MESSAGE", "Invalid params.ids: is required", {
          field: "params.ids",
        });
      }
      return { clips: q.clips(project(), p.ids) };
    case "effects":
      return { effects: q.effects(project()) };
    case "visualizers":
      return { visualizers: q.visualizers(project()) };
    case "presets":
      return { presets: q.presets() };
    case "preset":
      return q.preset(need(p.kind, "kind"), need(p.presetId, "presetId"));
    case "cameras":
      return { cameras: q.cameras() };
  }
  throw new CueportError("INVALID_MESSAGE", `Unknown query "${query}"`);
}
