/**
 * Projects and Songs as MCP resources (`app://projects/{projectId}`,
 * `app://projects/{projectId}/songs/{songId}`), read through the `project`
 * and `song` query operations, and which of them a batch of state updates
 * changed (for `notifications/resources/updated`).
 * @module
 */
import type { ProjectPatch } from "../../protocol/patch.ts";
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
      input: { projectId: decodeURIComponent(song[1]!), songID: decodeURIComponent(song[2]!) },
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

/** Which Songs of a Project hold a Clip, as the read model says. */
export type SongsOfClip = (projectId: string, clipId: string) => readonly string[];

/** What a batch of updates changed: resource URIs, Projects all of whose Songs changed, or all. */
export interface BatchChanges {
  isAll: boolean;
  uris: Set<string>;
  /** Projects whose every Song resource changed (a new order moves every position). */
  allSongsOf: Set<string>;
}

/** The Songs a `project-edited` patch changed: its Songs, the Songs of its Clips, or all. */
function patchChanges(
  projectId: string,
  patch: ProjectPatch | undefined,
  songsOfClip: SongsOfClip,
  changes: BatchChanges,
): void {
  // Without a patch, or with a new order or new files (what a Song's Clips show), every Song.
  if (!patch || patch.songOrder || patch.fields?.files) {
    changes.allSongsOf.add(projectId);
    return;
  }
  for (const songId of Object.keys(patch.songs ?? {})) {
    changes.uris.add(resourceUri(projectId, songId));
  }
  for (const clipId of Object.keys(patch.clips ?? {})) {
    for (const songId of songsOfClip(projectId, clipId)) {
      changes.uris.add(resourceUri(projectId, songId));
    }
  }
}

/**
 * What a batch of updates changed among the Project and Song resources.
 * Only document changes count: a Project's edits (`project-edited` and its
 * patch), a Song's or a Clip's (`song-changed`, `clip-changed` and their
 * removals), and a `full` update (everything). Play state, live parameters
 * and progress reports change no resource.
 */
export function batchChanges(
  updates: readonly StateUpdate[],
  songsOfClip: SongsOfClip,
): BatchChanges {
  const changes: BatchChanges = { isAll: false, uris: new Set(), allSongsOf: new Set() };
  for (const update of updates) {
    if (update.updateType === "full") {
      changes.isAll = true;
      return changes;
    }
    const { projectId, data } = update;
    if (projectId === null) continue;
    const project = resourceUri(projectId);
    switch (data.event) {
      case "project-edited":
        changes.uris.add(project);
        patchChanges(projectId, data.patch as ProjectPatch | undefined, songsOfClip, changes);
        break;
      case "song-changed":
      case "song-removed":
        changes.uris.add(project);
        changes.uris.add(resourceUri(projectId, String(data.songID)));
        break;
      case "clip-changed":
      case "clip-removed":
        changes.uris.add(project);
        for (const songId of songsOfClip(projectId, String(data.clipID))) {
          changes.uris.add(resourceUri(projectId, songId));
        }
        break;
    }
  }
  return changes;
}

/** The subscribed URIs among `changes`. */
export function subscribedIn(changes: BatchChanges, subscribed: ReadonlySet<string>): string[] {
  if (changes.isAll) return [...subscribed];
  return [...subscribed].filter((uri) => {
    if (changes.uris.has(uri)) return true;
    const song = SONG_URI.exec(uri);
    return song !== null && changes.allSongsOf.has(decodeURIComponent(song[1]!));
  });
}

/** The subscribed URIs that a batch of updates changed. */
export function changedResources(
  updates: readonly StateUpdate[],
  subscribed: ReadonlySet<string>,
  songsOfClip: SongsOfClip,
): string[] {
  if (subscribed.size === 0) return [];
  return subscribedIn(batchChanges(updates, songsOfClip), subscribed);
}
