/**
 * The resource notifications of all sessions, worked out once per batch of
 * state updates: which Project and Song resources the batch changed, and
 * whether the list of resources changed. Each session then only picks its
 * subscriptions. Per session, the list and the changes cost a walk over
 * every Song at each edit: with 30 sessions that was most of the service's
 * work during an edit burst, and its garbage most of its memory.
 * @module
 */
import type { Core, UpdateBatch } from "../core/mod.ts";
import { type BatchChanges, batchChanges, resourceListKey, subscribedIn } from "./resources.ts";

const encoder = new TextEncoder();

/** A JSON-RPC notification as the SDK's transport writes it on an event stream. */
function sseEvent(notification: { method: string; params?: Record<string, unknown> }): string {
  return `event: message\ndata: ${JSON.stringify({ ...notification, jsonrpc: "2.0" })}\n\n`;
}

const LIST_CHANGED = sseEvent({ method: "notifications/resources/list_changed" });

/** The notifications a batch owes, shared by the sessions (`session.ts`). */
export class ResourceFeed {
  #core: Core;
  #seq = -1;
  #changes: BatchChanges | null = null;
  #listSeq = -1;
  #isListChanged = false;
  #listKey: string | null = null;
  #eventsSeq = -1;
  /** The event of each URI notified in the current batch. */
  #events = new Map<string, string>();

  /** A feed over the core's read model. */
  constructor(core: Core) {
    this.#core = core;
  }

  /** Reads which resources exist, so the next change of the list is seen (a session starts). */
  prime(): void {
    this.#listKey ??= this.#key();
  }

  /**
   * The SSE events `batch` owes a session subscribed to `subscribed`, as
   * one chunk of bytes for its `GET` stream, or null when none: a
   * `notifications/resources/updated` per changed resource, and
   * `notifications/resources/list_changed` when the list changed. The
   * events are the SDK's (`event: message`, the JSON-RPC notification as
   * `data`), each made once per batch for every session.
   */
  events(batch: UpdateBatch, subscribed: ReadonlySet<string>): Uint8Array | null {
    const uris = this.changed(batch, subscribed);
    const isListChanged = this.isListChanged(batch);
    if (uris.length === 0 && !isListChanged) return null;
    if (batch.seq !== this.#eventsSeq) {
      this.#eventsSeq = batch.seq;
      this.#events.clear();
    }
    let text = "";
    for (const uri of uris) {
      let event = this.#events.get(uri);
      if (event === undefined) {
        event = sseEvent({ method: "notifications/resources/updated", params: { uri } });
        this.#events.set(uri, event);
      }
      text += event;
    }
    if (isListChanged) text += LIST_CHANGED;
    return encoder.encode(text);
  }

  /** The URIs of `subscribed` that `batch` changed. */
  changed(batch: UpdateBatch, subscribed: ReadonlySet<string>): string[] {
    if (subscribed.size === 0) return [];
    if (batch.seq !== this.#seq || this.#changes === null) {
      this.#seq = batch.seq;
      this.#changes = batchChanges(batch.updates, this.#songsOfClip());
    }
    return subscribedIn(this.#changes, subscribed);
  }

  /** Whether `batch` added or removed a Project or a Song. */
  isListChanged(batch: UpdateBatch): boolean {
    if (batch.seq === this.#listSeq) return this.#isListChanged;
    this.#listSeq = batch.seq;
    this.#isListChanged = false;
    if (!batch.updates.some((u) => u.updateType === "project" || u.updateType === "full")) {
      return false;
    }
    const key = this.#key();
    if (key === null) return false;
    this.#isListChanged = this.#listKey !== null && key !== this.#listKey;
    this.#listKey = key;
    return this.#isListChanged;
  }

  /** The list's key, or null while the read model is not loaded. */
  #key(): string | null {
    try {
      return resourceListKey(this.#core);
    } catch {
      return null;
    }
  }

  /** Which Songs hold a Clip, from the Projects' views (built when first asked, per batch). */
  #songsOfClip(): (projectId: string, clipId: string) => readonly string[] {
    const byProject = new Map<string, Map<string, string[]>>();
    return (projectId, clipId) => {
      let clips = byProject.get(projectId);
      if (!clips) {
        clips = new Map();
        byProject.set(projectId, clips);
        try {
          for (const song of this.#core.queries.songs(projectId)) {
            for (const id of song.clipIDs) clips.set(id, [...(clips.get(id) ?? []), song.songID]);
          }
        } catch {
          // a Project that is gone holds no Songs
        }
      }
      return clips.get(clipId) ?? [];
    };
  }
}
