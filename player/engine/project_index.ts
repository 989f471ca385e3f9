/**
 * The document an engine plays, with its lookups: the Clips and Songs by id,
 * and the Song each Clip belongs to. Replaced whole after an edit or reload.
 * @module
 */
import type { Clip, Project, Song } from "../../protocol/model.ts";
import { Refusal } from "../errors.ts";

/** One Project's document and its lookups by id. */
export class ProjectIndex {
  #project!: Project;
  #clipById = new Map<string, Clip>();
  #songById = new Map<string, Song>();
  #songOfClip = new Map<string, string>();

  /** Indexes `project`. */
  constructor(project: Project) {
    this.set(project);
  }

  /** The project document. */
  get project(): Project {
    return this.#project;
  }

  /** Replaces the document and its lookups. */
  set(project: Project): void {
    this.#project = project;
    this.#clipById = new Map(project.clips.map((c) => [c.id, c]));
    this.#songById = new Map(project.songs.map((s) => [s.id, s]));
    this.#songOfClip = new Map();
    for (const song of project.songs) {
      for (const id of song.clips) this.#songOfClip.set(id, song.id);
    }
  }

  /** Whether the Project has a Clip `id`. */
  hasClip(id: string): boolean {
    return this.#clipById.has(id);
  }

  /** Whether the Project has a Song `id`. */
  hasSong(id: string): boolean {
    return this.#songById.has(id);
  }

  /** The Clip with `id`, or a refusal naming it. */
  clip(id: string): Clip {
    const clip = this.#clipById.get(id);
    if (!clip) throw new Refusal(`Clip "${id}" does not exist in project "${this.#project.id}"`);
    return clip;
  }

  /** The Song with `id`, or a refusal naming it. */
  song(id: string): Song {
    const song = this.#songById.get(id);
    if (!song) throw new Refusal(`Song "${id}" does not exist in project "${this.#project.id}"`);
    return song;
  }

  /** The Song with `id`, if any (no refusal). */
  findSong(id: string): Song | undefined {
    return this.#songById.get(id);
  }

  /** The Song whose list holds the Clip, if any. */
  songOfClip(clipId: string): string | null {
    return this.#songOfClip.get(clipId) ?? null;
  }
}
