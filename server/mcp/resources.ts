/**
 * Projects and Songs as MCP resources (`app://projects/{projectId}`,
 * `app://projects/{projectId}/songs/{songId}`), read through the `project`
 * and `song` query operations, and which of them a batch of state updates
 * changed (for `notifications/resources/updated`).
 * @module
 */
import type { StateUpdate } from "../../protocol/state.ts";
import { type AnyOperation, type Core, CueportError, operationNamed } from "../core/mod.ts";

/** A `resources/list` entry. */
export interface ResourceListing {
  [key: string]: unknown;
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: "application/json";
}

/** The resource templates (`resources/templates/list`). */
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: "app://projects/{projectId}",
    name: "project",
    title: "A Project",
    description: "A Project in full, as app_get_project answers it",
    mimeType: "application/json",
  },
  {
    uriTemplate: "app://projects/{projectId}/songs/{songId}",
    name: "song",
    title: "A Song",
    description: "A Song with its timeline, lyrics and Clips, as app_get_song answers it",
    mimeType: "application/json",
  },
];

const PROJECT_URI = /^app:\/\/projects\/([^/]+)$/;
const SONG_URI = /^app:\/\/projects\/([^/]+)\/songs\/([^/]+)$/;

/** The URI of a Project, or of one of its Songs. */
export function resourceUri(projectId: string, songId?: string): string {
  const project = `app://projects/${encodeURIComponent(projectId)}`;
  return songId === undefined ? project : `${project}/songs/${encodeURIComponent(songId)}`;
}

/** Every Project and Song of the read model as a resource. */
export function listResources(core: Core): ResourceListing[] {
  const listings: ResourceListing[] = [];
  for (const project of core.queries.projects()) {
    listings.push({
      uri: resourceUri(project.projectId),
      name: project.projectId,
      title: project.name,
      description:
        `Project "${project.name}": ${project.songCount} Songs, ${project.clipCount} Clips`,
      mimeType: "application/json",
    });
    for (const song of core.queries.songs(project.projectId)) {
      listings.push({
        uri: resourceUri(project.projectId, song.songID),
        name: `${project.projectId}/${song.songID}`,
        title: song.title,
        description: `Song ${song.position + 1} of "${project.name}": ${song.clipCount} Clips`,
        mimeType: "application/json",
      });
    }
  }
  return listings;
}

/** What changes the resource list: which Projects and Songs exist. */
export function resourceListKey(core: Core): string {
  return core.queries.projects()
    .map((p) => `${p.projectId}:${core.queries.songs(p.projectId).map((s) => s.songID).join(",")}`)
    .join(";");
}

/** The operation and its input that read a resource URI. */
export function resourceRead(uri: string): { operation: AnyOperation; input: unknown } {
  const song = SONG_URI.exec(uri);
  if (song) {
    return {
      operation: operationNamed("song"),
      input: { projectId: decodeURIComponent(song[1]!), songId: decodeURIComponent(song[2]!) },
    };
  }
  const project = PROJECT_URI.exec(uri);
  if (project) {
    return {
      operation: operationNamed("project"),
      input: { projectId: decodeURIComponent(project[1]!) },
    };
  }
  throw new CueportError(
    "NOT_FOUND",
    `No resource "${uri}": resources are app://projects/{projectId} and app://projects/{projectId}/songs/{songId}`,
  );
}

/** The update types that change what a Project or Song resource holds (play state does not). */
const DOCUMENT_UPDATES = new Set(["project", "song", "clip", "full"]);

/** The subscribed URIs that a batch of updates may have changed. */
export function changedResources(
  updates: readonly StateUpdate[],
  subscribed: ReadonlySet<string>,
): string[] {
  if (subscribed.size === 0) return [];
  const projects = new Set<string>();
  for (const update of updates) {
    if (!DOCUMENT_UPDATES.has(update.updateType)) continue;
    if (update.updateType === "full" || update.projectId === null) return [...subscribed];
    projects.add(resourceUri(update.projectId));
  }
  return [...subscribed].filter((uri) => {
    const project = SONG_URI.test(uri) ? uri.slice(0, uri.indexOf("/songs/")) : uri;
    return projects.has(project);
  });
}
