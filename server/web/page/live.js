// @ts-check
// The live side of the web remote: one WebSocket to /v1 on the service's WebSocket port
// (docs/websocket.md), reconnected after a drop and resynced from a `full` update, and the
// store the screens render from.

import { api, ApiError, library, savedToken } from "./api.js";

/** @typedef {import("./api.js").ProjectView} ProjectView */
/** @typedef {import("./api.js").LibraryItem} LibraryItem */
/** @typedef {import("./api.js").ActionParams} ActionParams */
/** @typedef {import("../../../protocol/state.ts").PlayStateView} PlayStateView */
/** @typedef {import("../../../protocol/state.ts").AppState} AppState */
/** @typedef {import("../../../protocol/state.ts").StateUpdate} StateUpdate */
/** @typedef {import("../../../protocol/rigs.ts").GroupStatus} GroupStatus */

/**
 * A message shown in the page's live region: `serial` counts them, so the same one shows again.
 * @typedef {object} Notice
 * @property {string} message
 * @property {string} kind
 * @property {number} serial
 */
/**
 * The rig group as the page shows it (see `store.rig`).
 * @typedef {object} Rig
 * @property {string} group the group's name
 * @property {string} name this rig's
 * @property {string | null} from the rig the page moved from
 * @property {{name: string, pages: string[]}[]} others the other rigs and their remote pages
 * @property {GroupStatus} status the whole answer of `GET /api/v1/group`
 */
/**
 * What the screens show (`store`).
 * @typedef {object} Store
 * @property {"connecting" | "live" | "offline" | "pairing"} conn
 * @property {string} connNote
 * @property {ProjectView | null} project
 * @property {PlayStateView | null} playstate
 * @property {AppState | null} appState
 * @property {LibraryItem[] | null} library
 * @property {number} receivedAt
 * @property {Notice | null} notice
 * @property {Rig | null} rig
 */
/**
 * The fields of a state update's `data` the page reads (`protocol/state_updates.ts` declares
 * each event's): the play state or app state after it, a Control's new value.
 * @typedef {object} UpdateData
 * @property {string} [event]
 * @property {PlayStateView} [playstate]
 * @property {AppState} [appState]
 * @property {string} [controlID] of `control-changed`
 * @property {number} [value] of `control-changed`
 */
/**
 * A state update, its `data` as the page reads it.
 * @typedef {Omit<StateUpdate, "data"> & {data?: UpdateData}} Update
 */
/**
 * A message of the socket (docs/websocket.md) as the page reads it.
 * @typedef {{type: "event", event: string, payload?: unknown}
 *   | {type: "response", id: string, data: unknown}
 *   | {type: "error", id: string, error: {code: string, message: string}}} SocketMessage
 */

/**
 * The rig this page moved from (`#from=<rig>` in its address), or null.
 * @type {string | null}
 */
export let movedFrom = null;

/**
 * Notes the rig the page moved from (read once at boot from the fragment).
 * @param {string | null} rig
 */
export function setMovedFrom(rig) {
  movedFrom = rig;
}

const LOCAL_TOKEN_KEY = "cueport.remote.localToken";

/**
 * What the screens show; replaced field by field, rendered at most once a frame.
 * @type {Store}
 */
export const store = {
  /** "connecting", "live", "offline" (retrying), "pairing" (no usable token) */
  conn: "connecting",
  connNote: "",
  project: null,
  playstate: null,
  appState: null,
  /** The Projects on disk (the set list's picker), each with `state`, `active` and `problem`. */
  library: null,
  /** performance.now() when `playstate` arrived: positions run on from there. */
  receivedAt: 0,
  /** The last error to show, with a serial so the same message shows again. */
  notice: null,
  /**
   * In a rig group (docs/remote.md, "Rig groups"): the group, this rig, the rig the page moved
   * from (null), and the other rigs' remote pages to move to, the leader's first; null alone.
   */
  rig: null,
};

/** @type {Set<() => void>} */
const listeners = new Set();
let isScheduled = false;

/**
 * Calls `listener` after changes, at most once per animation frame; returns its unsubscribe.
 * @param {() => void} listener
 */
export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** @param {Partial<Store>} patch */
function changed(patch) {
  Object.assign(store, patch);
  if (isScheduled) return;
  isScheduled = true;
  requestAnimationFrame(() => {
    isScheduled = false;
    for (const listener of listeners) listener();
  });
}

/**
 * Shows a message (an error, a refusal) in the page's live region.
 * @param {string} message
 * @param {string} [kind]
 */
export function notify(message, kind = "error") {
  changed({ notice: { message, kind, serial: (store.notice?.serial ?? 0) + 1 } });
}

function localToken() {
  try {
    return localStorage.getItem(LOCAL_TOKEN_KEY);
  } catch {
    return null;
  }
}

/** @param {string | null} token */
function saveLocalToken(token) {
  try {
    if (token) localStorage.setItem(LOCAL_TOKEN_KEY, token);
    else localStorage.removeItem(LOCAL_TOKEN_KEY);
  } catch {
    // no storage: approved again next time
  }
}

/** The live connection. */
export class Live {
  #url;
  /** @type {WebSocket | null} */
  #socket = null;
  #isAuthed = false;
  #nextId = 1;
  /** @type {Map<string, {resolve: (data: unknown) => void, reject: (error: unknown) => void}>} */
  #pending = new Map();
  #retryMs = 250;
  #retryTimer = 0;
  #isStopped = false;
  #onRevoked;
  #queryTimer = 0;
  #libraryTimer = 0;
  #onGone;
  #groupTimer = 0;
  /** Whether the socket opened since the last drop authenticated (a failed reconnect: not). */
  #wasLive = false;

  /**
   * @param {string} url ws://host:port/v1
   * @param {{onRevoked: (message: string) => void, onGone?: () => void}} options `onGone`: the
   *   socket dropped and a reconnect failed (the rig stopped answering)
   */
  constructor(url, options) {
    this.#url = url;
    this.#onRevoked = options.onRevoked;
    this.#onGone = options.onGone ?? (() => {});
  }

  /** Whether actions go over the socket (else over HTTP). */
  get isLive() {
    return this.#isAuthed;
  }

  /** Opens the socket (again after a drop, with backoff up to 4 s). */
  start() {
    this.#isStopped = false;
    this.#open();
  }

  /** Closes for good (pairing again, or the page going away). */
  stop() {
    this.#isStopped = true;
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#groupTimer);
    this.#socket?.close(1000);
  }

  /** Drops the socket as a network failure would (tests and the reconnect button use it). */
  drop() {
    this.#socket?.close(4000, "dropped");
  }

  #open() {
    changed({ conn: "connecting", connNote: "" });
    let socket;
    try {
      socket = new WebSocket(this.#url);
    } catch (error) {
      this.#retry(`Cannot open ${this.#url}: ${/** @type {Error} */ (error).message}`);
      return;
    }
    this.#socket = socket;
    this.#isAuthed = false;
    socket.onmessage = (event) => this.#receive(JSON.parse(event.data));
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#isAuthed = false;
      for (const { reject } of this.#pending.values()) {
        reject(new ApiError(0, "CONNECTION_FAILED", "The connection dropped"));
      }
      this.#pending.clear();
      if (this.#isStopped) return;
      // 1008 after a revocation: the next auth tells whether the token still works.
      this.#retry(event.code === 1008 ? "The show machine closed the connection" : "");
      if (!this.#wasLive) this.#onGone();
      this.#wasLive = false;
    };
  }

  /** @param {string} note */
  #retry(note) {
    if (this.#isStopped) return;
    changed({ conn: "offline", connNote: note });
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => this.#open(), this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, 4000);
  }

  /**
   * Sends `message` (open: on `connected`, and while authenticated); resolves with its answer.
   * @param {Record<string, unknown>} message
   * @returns {Promise<unknown>}
   */
  #send(message) {
    const id = `m${this.#nextId++}`;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      /** @type {WebSocket} */ (this.#socket).send(JSON.stringify({ ...message, id }));
    });
  }

  /** @param {SocketMessage} message */
  #receive(message) {
    if (message.type === "event" && message.event === "connected") {
      this.#authenticate();
    } else if (message.type === "event" && message.event === "state-update") {
      for (const update of /** @type {Update[]} */ (message.payload)) this.#apply(update);
    } else if (message.type === "response" || message.type === "error") {
      const waiter = this.#pending.get(message.id);
      if (!waiter) return;
      this.#pending.delete(message.id);
      if (message.type === "response") waiter.resolve(message.data);
      else {
        waiter.reject(new ApiError(0, message.error.code, message.error.message));
      }
    }
  }

  async #authenticate() {
    const token = savedToken() ?? localToken();
    const payload = token ? { token } : { deviceName: "Web remote on the show machine" };
    try {
      const answer = /** @type {{token?: string}} */ (await this.#send({ type: "auth", payload }));
      if (answer.token && !savedToken()) saveLocalToken(answer.token);
    } catch (error) {
      const failure = /** @type {ApiError} */ (error);
      if (failure.code !== "AUTHENTICATION_FAILED") return; // dropped meanwhile: retried
      if (!savedToken() && localToken()) {
        saveLocalToken(null); // a local approval that expired: ask again
        this.drop();
        return;
      }
      this.stop();
      this.#onRevoked(
        savedToken()
          ? "This device is no longer paired (its token was revoked or expired): " +
            "enter a new code from cueport pair"
          : failure.message,
      );
      return;
    }
    this.#isAuthed = true;
    this.#wasLive = true;
    this.#retryMs = 250;
    changed({ conn: "live", connNote: "" });
    this.#learnGroup().catch(() => {}); // an older service: alone
    // Resync: everything held may be stale after a drop; the `full` update refreshes it.
    this.#send({ type: "full" }).catch(() => {});
  }

  /**
   * The rig group of this rig (GET /api/v1/group): the other rigs' pages, the leader's first, then
   * the one seen last; read again every 5 s while live, in a group only.
   */
  async #learnGroup() {
    clearTimeout(this.#groupTimer);
    const group = /** @type {GroupStatus} */ (await api("GET", "/api/v1/group"));
    if (group.group === null) return changed({ rig: null });
    if (this.#isAuthed) {
      this.#groupTimer = setTimeout(() => this.#learnGroup().catch(() => {}), 5000);
    }
    // `lastSeenMs` is null for this rig only: the others have theirs.
    const others = group.members.filter((m) => !m.isThisRig)
      .sort((a, b) =>
        Number(b.isLeader) - Number(a.isLeader) ||
        /** @type {number} */ (a.lastSeenMs) - /** @type {number} */ (b.lastSeenMs)
      )
      .map((m) => ({
        name: m.name,
        pages: m.addresses.map((a) =>
          `${location.protocol}//${a.includes(":") ? `[${a}]` : a}:${m.ports.http}/`
        ),
      }));
    // `status`: the whole answer, for the Group screen (`group.js`).
    changed({
      rig: { group: group.group, name: group.rig, from: movedFrom, others, status: group },
    });
  }

  /**
   * Runs an action over the socket; resolves with its answer.
   * @param {string} name
   * @param {ActionParams} params
   * @param {{velocity?: number}} [extra]
   */
  action(name, params, extra = {}) {
    return this.#send({ type: "action", action: { name, params }, ...extra });
  }

  /** Reads the active Project and the app state again (after a `full` or a change of the Project). */
  async refresh() {
    if (!this.#isAuthed) return;
    const [active, appState] =
      /** @type {[{project: ProjectView, playstate: PlayStateView}, AppState]} */ (
        await Promise.all([
          this.#send({ type: "query", query: "active" }),
          this.#send({ type: "query", query: "appState" }),
        ])
      );
    changed({
      project: active.project,
      playstate: active.playstate,
      receivedAt: performance.now(),
      appState,
    });
  }

  /** Reads the library again (after a `full`, or any change of a Project: opened, closed, made active, edited). */
  async refreshLibrary() {
    changed({ library: await library() });
  }

  /** One read of the library for a burst of changes of it. */
  #refreshLibrarySoon() {
    clearTimeout(this.#libraryTimer);
    this.#libraryTimer = setTimeout(() => this.refreshLibrary().catch(() => {}), 30);
  }

  /** One refresh for a burst of project changes. */
  #refreshSoon() {
    clearTimeout(this.#queryTimer);
    this.#queryTimer = setTimeout(() => this.refresh().catch(() => {}), 30);
  }

  /** @param {Update} update */
  #apply(update) {
    /** @type {UpdateData} */
    const data = update.data ?? {};
    const activeId = store.project?.projectId;
    switch (update.updateType) {
      case "full":
        this.#refreshSoon();
        this.#refreshLibrarySoon();
        break;
      case "playstate":
        if (update.projectId !== activeId) {
          // Another Project became active, or this one was replaced: read it again.
          if (data.event === "selection-changed") this.#refreshSoon();
          break;
        }
        if (data.playstate) {
          changed({ playstate: data.playstate, receivedAt: performance.now() });
        } else if (data.event === "control-changed" && store.playstate) {
          changed({
            playstate: {
              ...store.playstate,
              controls: {
                ...store.playstate.controls,
                // `control-changed` carries both (protocol/state_updates.ts).
                [/** @type {string} */ (data.controlID)]: /** @type {number} */ (data.value),
              },
            },
          });
        }
        break;
      case "appState":
        if (data.appState) changed({ appState: data.appState });
        break;
      case "project":
      case "song":
      case "clip":
        // Edits, imports and Project switches: what the screens show is read again.
        if (data.event === "import-progress" || data.event === "upload-progress") break;
        if (data.event === "param-changed") break;
        // The library's names and counts change with edits too: read it with the Project.
        if (update.updateType === "project") this.#refreshLibrarySoon();
        this.#refreshSoon();
        break;
    }
  }
}
