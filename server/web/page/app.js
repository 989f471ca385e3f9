// @ts-check
// The web remote: boots, pairs when it must, and renders the screens from the live store.

import { html, render, useEffect, useState } from "./preact.js";
import {
  actionOverHttp,
  api,
  ApiError,
  deviceName,
  edit,
  pair,
  savedToken,
  saveToken,
  scopesOf,
} from "./api.js";
import { Live, movedFrom, notify, setMovedFrom, store, subscribe } from "./live.js";
import { Shows } from "./shows.js";
import { Midi } from "./midi.js";
import { Group } from "./group.js";
import {
  ClipGrid,
  ConnectionBadge,
  Controls,
  Pairing,
  progressOf,
  SetList,
  Songs,
  System,
  Transport,
} from "./views.js";

/** @typedef {import("./api.js").ActionParams} ActionParams */
/** @typedef {import("./api.js").Info} Info */
/** @typedef {import("./api.js").ProjectView} ProjectView */
/** @typedef {import("./gestures.js").Velocity} Velocity */
/** @typedef {import("./live.js").Store} Store */
/** @typedef {import("./live.js").Rig} Rig */
/** @typedef {import("./live.js").Notice} StoreNotice */
/** @typedef {import("../../../protocol/state.ts").PlayStateView} PlayStateView */
/** @typedef {ReturnType<typeof html>} VNode */
/**
 * What the page shows: the pairing screen (saying why), the show machine out of reach, or the
 * remote with the token's scopes.
 * @typedef {{screen: "pairing", message: string}
 *   | {screen: "unreachable", message: string}
 *   | {screen: "remote", scopes: string[]}} Screen
 */

const ALL_SCOPES = ["view", "control", "edit"];
// The page's root (index.html's `#app`).
const root = /** @type {HTMLElement} */ (document.getElementById("app"));
/** @type {Live | null} */
let live = null;
let isInteractive = false;

/**
 * Back to pairing, with a message saying why (a revoked token, say).
 * @param {string} message
 */
function unpaired(message) {
  saveToken(null);
  live?.stop();
  live = null;
  show({ screen: "pairing", message });
}

/** @param {unknown} error an ApiError, or what else a call threw */
function failed(error) {
  if (error instanceof ApiError && error.status === 401 && savedToken()) {
    unpaired(
      "This device is no longer paired (its token was revoked or expired): " +
        "enter a new code from cueport pair",
    );
    return;
  }
  notify(/** @type {Error} */ (error).message);
}

/**
 * Runs an action: over the socket while it is live, else over HTTP.
 * @param {string} name
 * @param {ActionParams} params
 * @param {Velocity} [velocity]
 */
function run(name, params, velocity) {
  const extra = velocity === undefined ? {} : { velocity };
  const done = live?.isLive
    ? live.action(name, params, extra)
    : actionOverHttp(name, params, extra);
  return done.catch(failed);
}

/**
 * @param {string} name
 * @param {Record<string, unknown>} params
 */
function doEdit(name, params) {
  return edit(name, params).catch(failed);
}

/**
 * Makes an open show the active one.
 * @param {string} projectId
 */
function selectShow(projectId) {
  return run("PROJECT_SELECT", [projectId]);
}

/**
 * Opens a closed show, then makes it the active one.
 * @param {string} projectId
 */
async function openShow(projectId) {
  try {
    await edit("project.open", { projectID: projectId });
  } catch (error) {
    failed(error);
    return;
  }
  await selectShow(projectId);
}

/**
 * Creates an empty show; true when it was (it then shows in the list: a tap makes it active).
 * @param {string} name
 */
async function createShow(name) {
  try {
    await edit("project.create", { name });
    return true;
  } catch (error) {
    failed(error);
    return false;
  }
}

const TABS = [
  { id: "show", label: "Show" },
  { id: "controls", label: "Controls" },
  { id: "system", label: "Output" },
  // The shows (any device that may act) and the Songs' order (`edit` only).
  { id: "setlist", label: "Set list", scopes: ["control", "edit"] },
  // MIDI learn writes the Project's map (`edit`).
  { id: "midi", label: "MIDI", scopes: ["edit"] },
  // The rig group (`group.js`): in a group only.
  { id: "group", label: "Group", inGroup: true },
];

/**
 * The top bar: the show's name, the Song now (PGM id, title, state), view-only, the connection.
 * @param {{project: ProjectView | null, playstate: PlayStateView | null, canControl: boolean}} props
 */
function Header({ project, playstate, canControl }) {
  const song = project?.songs.find((s) => s.songID === playstate?.activeSongID);
  return html`
    <header class="top">
        <span class="project-name">${project?.name ?? "..."}</span>
        <span class="now" aria-live="polite" data-song-title=${song?.title ?? ""}>
          <span class="pgm-badge" aria-label="PGM id">${song?.pgmId ?? "-"}</span>
          <span class="now-title">${song?.title ?? ""}</span>
          <span class="now-state" data-song-state=${playstate?.song?.state ??
            ""}>${playstate?.song?.state ?? ""}</span>
        </span>
        ${!canControl && html`<span class="view-only">View only</span>`}
        <${ConnectionBadge} conn=${store.conn} note=${store.connNote} rig=${store.rig} />
      </header>
  `;
}

/** @param {{scopes: string[]}} props */
function Remote({ scopes }) {
  const [, setTick] = useState(0);
  const [tab, setTab] = useState("show");
  useEffect(() => subscribe(() => setTick((n) => n + 1)), []);
  const { project, playstate, appState } = store;
  useEffect(() => {
    // Interactive: the show is on screen and actions go out live (read by bench/remote_bench.ts).
    if (project && store.conn === "live" && !isInteractive) {
      isInteractive = true;
      performance.mark("cueport-interactive");
    }
  });
  const canControl = scopes.includes("control");
  const canEdit = scopes.includes("edit");
  const tabs = TABS.filter((t) =>
    (!t.scopes || t.scopes.some((s) => scopes.includes(s))) && (!t.inGroup || store.rig)
  );
  return html`
    <div class="remote">
      <${Header} project=${project} playstate=${playstate} canControl=${canControl} />
      <nav class="tabs" role="tablist" aria-label="Screens">
          ${tabs.map((t) =>
            html`
              <button role="tab" id=${`tab-${t.id}`} aria-selected=${tab === t.id
                ? "true"
                : "false"}
                onClick=${() => setTab(t.id)}>${t.label}</button>
            `
          )}
        </nav>
      <main class=${`screen screen-${tab}`} role="tabpanel" aria-labelledby=${`tab-${tab}`}>
          ${!project && html`<p class="note">Waiting for the show...</p>`}
          ${project && tab === "show" && html`
            <${Songs} project=${project} playstate=${playstate} canControl=${canControl} run=${run} />
            <${ClipGrid} project=${project} playstate=${playstate} canControl=${canControl} run=${run} />
          `}
          ${project && tab === "controls" &&
            html`<${Controls} project=${project} playstate=${playstate} canControl=${canControl} run=${run} />`}
          ${tab === "system" &&
            html`<${System} appState=${appState} canControl=${canControl} run=${run} />`}
          ${tab === "setlist" && html`
            <${Shows} library=${store.library} canControl=${canControl} canEdit=${canEdit}
              select=${selectShow} open=${openShow} create=${createShow} />
            ${project && canEdit && html`<${SetList} project=${project} doEdit=${doEdit} />`}
          `}
          ${project && tab === "midi" && html`<${Midi} project=${project} fail=${failed} />`}
          ${tab === "group" && store.rig && html`<${Group} status=${store.rig.status} />`}
        </main>
      <footer class="bottom">
        <${Transport} playstate=${playstate} canControl=${canControl} run=${run} />
      </footer>
      <${Notice} notice=${store.notice} />
    </div>
  `;
}

/** @param {{notice: StoreNotice | null}} props */
function Notice({ notice }) {
  const [shown, setShown] = useState(/** @type {StoreNotice | null} */ (null));
  useEffect(() => {
    if (!notice) return;
    setShown(notice);
    const timer = setTimeout(() => setShown(null), 4000);
    return () => clearTimeout(timer);
  }, [notice?.serial]);
  return html`<div class="notice" role="alert" data-notice=${shown ? "shown" : ""}>${
    shown?.message ?? ""
  }</div>`;
}

/** The position bars, moved every frame from the last play state (transforms: no layout). */
function animateBars() {
  const now = performance.now();
  const entries = new Map((store.playstate?.clips ?? []).map((e) => [e.clipID, e]));
  const bars = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-bar]"));
  for (const bar of bars) {
    // The selector's: each has its Clip's id.
    const p = progressOf(
      entries.get(/** @type {string} */ (bar.dataset.bar)),
      store.receivedAt,
      now,
    );
    bar.style.transform = `scaleX(${p.toFixed(4)})`;
  }
  requestAnimationFrame(animateBars);
}

let hasPainted = false;

/**
 * Renders `vnode` as the whole page.
 * @param {VNode} vnode
 */
function paint(vnode) {
  // The first time, the page's static "Loading the remote..." goes: Preact renders next to what it
  // did not render itself, so the note would stay under every screen.
  if (!hasPainted) root.replaceChildren();
  hasPainted = true;
  render(vnode, root);
}

/** @param {Screen} state */
function show(state) {
  if (state.screen === "pairing") {
    paint(html`
      <${Pairing} message=${state.message} defaultName=${deviceName()}
        onPair=${async (/** @type {string} */ otp, /** @type {string} */ name) => {
          await pair(otp, name);
          await start();
        }} />
    `);
    return;
  }
  if (state.screen === "unreachable") {
    paint(html`<p class="note" role="alert">${state.message}</p>`);
    return;
  }
  paint(html`<${Remote} scopes=${state.scopes} />`);
}

/** Reads the API's info (which needs a token, or a local browser), then goes live. */
async function start() {
  let info;
  try {
    info = /** @type {Info} */ (await api("GET", "/api/v1/info"));
  } catch (error) {
    if (/** @type {ApiError} */ (error).status === 401) {
      const hadToken = savedToken() !== null;
      saveToken(null);
      show({
        screen: "pairing",
        message: movedFrom
          ? `Rig ${movedFrom} stopped answering, and this rig of its group has not paired ` +
            "this device yet: enter a code from cueport pair on this rig"
          : hadToken
          ? "This device is no longer paired (its token was revoked or expired): " +
            "enter a new code from cueport pair"
          : "",
      });
      return;
    }
    show({
      screen: "unreachable",
      message: `Cannot reach the show machine: ${/** @type {ApiError} */ (error).message}`,
    });
    return;
  }
  const token = savedToken();
  const scopes = token ? scopesOf(token) : ALL_SCOPES;
  const host = location.hostname;
  live = new Live(`ws://${host}:${info.ports.ws}${info.websocket ?? "/v1"}`, {
    onRevoked: unpaired,
    onGone: moveToLiveRig,
  });
  // The connection and the store, reachable from outside the modules (a browser's console).
  /** @type {typeof globalThis & {cueportRemote: {live: Live, store: Store}}} */ (globalThis)
    .cueportRemote = { live, store };
  show({ screen: "remote", scopes });
  live.start();
}

/**
 * This rig stopped answering (its socket closed, a reconnect failed): the page moves to the other
 * rig of the group seen alive last (the leader first), saying where it came from. The page cannot
 * ask another rig first (its Content-Security-Policy keeps its requests to its own origin), so the
 * group is read every few seconds while live. The group shares its pairings, but a browser keeps
 * a token per address: the page takes its token along in the fragment (never sent to a server,
 * dropped from the address at boot). A rig that does not know the device (a device paired before
 * pairings were shared) shows the pairing screen, saying so.
 */
function moveToLiveRig() {
  const rig = store.rig?.others[0];
  if (!rig || rig.pages.length === 0) return;
  // An address of the family the page was opened with (an IPv6 one only for an IPv6 page).
  const v6 = location.hostname.startsWith("[");
  const page = rig.pages.find((p) => p.includes("//[") === v6) ?? rig.pages[0];
  // `rig` is of `store.rig`; the token was just read.
  const fragment = new URLSearchParams({ from: /** @type {Rig} */ (store.rig).name });
  if (savedToken()) fragment.set("token", /** @type {string} */ (savedToken()));
  location.assign(`${page}#${fragment}`);
}

async function boot() {
  // A code in the fragment (the QR code of `cueport pair`): pair at once, then forget it.
  const fragment = new URLSearchParams(location.hash.slice(1));
  const otp = fragment.get("otp");
  // Moved here from another rig of the group: the status line says so; its token comes along.
  if (fragment.get("from")) setMovedFrom(fragment.get("from"));
  if (fragment.get("token")) saveToken(fragment.get("token"));
  if (otp || fragment.get("from") || fragment.get("token")) {
    history.replaceState(null, "", location.pathname);
  }
  if (otp) {
    try {
      await pair(otp, deviceName());
    } catch (error) {
      show({
        screen: "pairing",
        message: `The code from the QR code did not work: ${/** @type {Error} */ (error).message}`,
      });
      return;
    }
  }
  await start();
}

requestAnimationFrame(animateBars);
boot();
