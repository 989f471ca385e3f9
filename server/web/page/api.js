// @ts-check
// The HTTP side of the web remote: the token it keeps, pairing, actions and edits over the
// public API (docs/api.md, docs/security.md, docs/edits.md).

/** @typedef {import("../../../protocol/model.ts").LaunchMode} LaunchMode */

// The wire shapes below are the service's answers (`server/core/views.ts`, `server/routes/info.ts`)
// with the fields the page uses: server/web/ takes its types from protocol/ only (the import
// graph of docs/architecture.md).

/**
 * A Song of the active Project.
 * @typedef {object} SongView
 * @property {string} songID
 * @property {string} title
 * @property {number} position zero-based position in the Project
 * @property {string | null} pgmId
 * @property {number} clipCount
 */
/**
 * A Clip of the active Project.
 * @typedef {object} ClipView
 * @property {string} clipID
 * @property {string} name
 * @property {string | null} songID the Song whose list holds the Clip
 * @property {number | null} index zero-based position in its Song
 * @property {string | null} fileId
 * @property {LaunchMode} launchMode
 */
/**
 * A Control of the active Project.
 * @typedef {object} ControlView
 * @property {string} controlID its letter
 * @property {string} name
 */
/**
 * The active Project, as the `active` query answers it.
 * @typedef {object} ProjectView
 * @property {string} projectId
 * @property {string} name
 * @property {SongView[]} songs
 * @property {ClipView[]} clips
 * @property {ControlView[]} controls
 */
/**
 * One Project of the library (`GET /api/v1/projects?all=true`).
 * @typedef {import("../../../protocol/library.ts").LibraryEntry & {active: boolean}} LibraryItem
 */
/**
 * The API's info (`GET /api/v1/info`): the WebSocket's port and path.
 * @typedef {object} Info
 * @property {{ws: number}} ports
 * @property {string} [websocket]
 */
/**
 * An answer of the API that refused (any field may be missing from a proxy's answer).
 * @typedef {{error?: {code?: string, message?: string}} | null} ErrorAnswer
 */
/**
 * An action's params, in order.
 * @typedef {(string | number | boolean)[]} ActionParams
 */

const TOKEN_KEY = "cueport.remote.token";

/** A failed API call, with the API's error code and message (and `retryAfterMs` on a 429). */
export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status; 0 when no answer came
   * @param {string} code
   * @param {string} message
   * @param {number} [retryAfterMs]
   */
  constructor(status, code, message, retryAfterMs = undefined) {
    super(message);
    this.status = status;
    this.code = code;
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
  }
}

/** The token this browser keeps (a paired device's, or a local approval's), or null. */
export function savedToken() {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

/**
 * Keeps (or with null forgets) the token.
 * @param {string | null} token
 */
export function saveToken(token) {
  try {
    if (token === null) localStorage.removeItem(TOKEN_KEY);
    else localStorage.setItem(TOKEN_KEY, token);
  } catch {
    // private mode without storage: the token lives as long as the page
  }
}

/**
 * The scopes a token grants, read from its claims (the server checks them, this only shapes the page).
 * @param {string} token
 * @returns {string[]}
 */
export function scopesOf(token) {
  try {
    // A token without claims throws here: no scopes.
    const part = /** @type {string} */ (token.split(".")[1]).replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(atob(part + "=".repeat((4 - part.length % 4) % 4)));
    return Array.isArray(claims.scopes) ? claims.scopes : [];
  } catch {
    return [];
  }
}

/** A name for this device in `cueport devices`. */
export function deviceName() {
  const ua = navigator.userAgent;
  const kind = /iPad/.test(ua)
    ? "iPad"
    : /iPhone/.test(ua)
    ? "iPhone"
    : /Android/.test(ua)
    ? "Android"
    : "browser";
  return `Web remote (${kind})`;
}

/**
 * Calls the API with the kept token; resolves with the JSON answer, rejects with ApiError.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<unknown>} the answer, of the route's shape
 */
export async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = {};
  const token = savedToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, "CONNECTION_FAILED", "The show machine cannot be reached");
  }
  /** @type {unknown} */
  const answer = await res.json().catch(() => null);
  if (!res.ok) {
    const refusal = /** @type {ErrorAnswer} */ (answer);
    throw new ApiError(
      res.status,
      refusal?.error?.code ?? "SERVER_ERROR",
      refusal?.error?.message ?? `HTTP ${res.status}`,
    );
  }
  return answer;
}

/**
 * Exchanges a one-time code for a token (POST /api/v1/pair) and keeps it.
 * @param {string} otp
 * @param {string} name
 */
export async function pair(otp, name) {
  const answer = /** @type {{token: string}} */ (
    await api("POST", "/api/v1/pair", { otp, deviceName: name })
  );
  saveToken(answer.token);
  return answer;
}

/**
 * Runs an action over HTTP (the WebSocket is used when it is open: see live.js).
 * @param {string} name
 * @param {ActionParams} [params]
 * @param {{velocity?: number}} [extra]
 */
export function actionOverHttp(name, params = [], extra = {}) {
  return api("POST", "/api/v1/action", { name, params, ...extra });
}

/**
 * Applies an edit (POST /api/v1/edit).
 * @param {string} name
 * @param {Record<string, unknown>} [params]
 */
export function edit(name, params = {}) {
  return api("POST", "/api/v1/edit", { name, params });
}

/**
 * The library: every Project on disk with its state, the active one marked (GET /api/v1/projects?all=true).
 * @returns {Promise<LibraryItem[]>}
 */
export async function library() {
  return (/** @type {{projects: LibraryItem[]}} */ (await api("GET", "/api/v1/projects?all=true")))
    .projects;
}

/** @type {Map<string, Promise<string>>} */
const thumbs = new Map();

/**
 * A thumbnail's URL for an <img>: the route itself when no token is needed
 * (a local browser), else a blob fetched with the token (an <img> cannot
 * send an Authorization header). The browser's cache revalidates with ETags.
 * @param {string} projectId
 * @param {string} fileId
 * @param {number} size
 * @returns {Promise<string>}
 */
export function thumbnailUrl(projectId, fileId, size) {
  const path = `/thumbnails/${encodeURIComponent(projectId)}/${
    encodeURIComponent(fileId)
  }.jpg?size=${size}`;
  const token = savedToken();
  if (!token) return Promise.resolve(path);
  let url = thumbs.get(path);
  if (!url) {
    url = fetch(path, { headers: { authorization: `Bearer ${token}` } })
      .then((res) => (res.ok ? res.blob() : Promise.reject(new Error(`HTTP ${res.status}`))))
      .then((blob) => URL.createObjectURL(blob));
    url.catch(() => thumbs.delete(path));
    thumbs.set(path, url);
  }
  return url;
}

/**
 * The output's picture now (GET /api/v1/output/frame.jpg, `size` px) as `{ blob, etag }`, fetched
 * with the kept token as the other calls are; with the `etag` of the picture shown, null while
 * the output shows the same (304). Rejects with ApiError (the API's code and message: with no
 * output running, the setting to change; on a 429 the `Retry-After` as `retryAfterMs`).
 * @param {number} size
 * @param {AbortSignal} signal
 * @param {string | null} [etag]
 * @returns {Promise<{blob: Blob, etag: string | null} | null>}
 */
export async function outputFrame(size, signal, etag = null) {
  /** @type {Record<string, string>} */
  const headers = {};
  const token = savedToken();
  if (token) headers.authorization = `Bearer ${token}`;
  // The browser keeps no copy (no-store): the page sends the ETag itself.
  if (etag) headers["if-none-match"] = etag;
  let res;
  try {
    res = await fetch(`/api/v1/output/frame.jpg?size=${size}&quality=70`, {
      headers,
      signal,
      cache: "no-store",
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, "CONNECTION_FAILED", "The show machine cannot be reached");
  }
  if (res.status === 304) return null;
  if (res.ok) return { blob: await res.blob(), etag: res.headers.get("etag") };
  /** @type {ErrorAnswer} */
  const answer = await res.json().catch(() => null);
  const retryAfter = Number(res.headers.get("retry-after"));
  throw new ApiError(
    res.status,
    answer?.error?.code ?? "SERVER_ERROR",
    answer?.error?.message ?? `HTTP ${res.status}`,
    res.status === 429 && retryAfter > 0 ? retryAfter * 1000 : undefined,
  );
}
