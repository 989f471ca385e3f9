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

const ALL_SCOPES = ["view", "control", "edit"];
const root = document.getElementById("app");
let live = null;
let isInteractive = false;

/** Back to pairing, with a message saying why (a revoked token, say). */
function unpaired(message) {
  saveToken(null);
  live?.stop();
  live = null;
  show({ screen: "pairing", message });
}

function failed(error) {
  if (error instanceof ApiError && error.status === 401 && savedToken()) {
    unpaired(
      "This device is no longer paired (its token was revoked or expired): " +
        "enter a new code from cueport pair",
    );
    return;
  }
  notify(error.message);
}

/** Runs an action: over the socket while it is live, else over HTTP. */
function run(name, params, velocity) {
  const extra = velocity === undefined ? {} : { velocity };
  const done = live?.isLive
    ? live.action(name, params, extra)
    : actionOverHttp(name, params, extra);
  return done.catch(failed);
}

function doEdit(name, params) {
  return edit(name, params).catch(failed);
}

/** Makes an open show the active one. */
function selectShow(projectId) {
  return run("PROJECT_SELECT", [projectId]);
}

/** Opens a closed show, then makes it the active one. */
async function openShow(projectId) {
  try {
    await edit("project.open", { projectID: projectId });
  } catch (error) {
    failed(error);
    return;
  }
  await selectShow(projectId);
}

/** Creates an empty show; true when it was (it then shows in the list: a tap makes it active). */
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
];

/** The top bar: the show's name, the Song now (PGM id, title, state), view-only, the connection. */
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
  const tabs = TABS.filter((t) => !t.scopes || t.scopes.some((s) => scopes.includes(s)));
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
        </main>
      <footer class="bottom">
        <${Transport} playstate=${playstate} canControl=${canControl} run=${run} />
      </footer>
      <${Notice} notice=${store.notice} />
    </div>
  `;
}

function Notice({ notice }) {
  const [shown, setShown] = useState(null);
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
  for (const bar of document.querySelectorAll("[data-bar]")) {
    const p = progressOf(entries.get(bar.dataset.bar), store.receivedAt, now);
    bar.style.transform = `scaleX(${p.toFixed(4)})`;
  }
  requestAnimationFrame(animateBars);
}

let hasPainted = false;

/** Renders `vnode` as the whole page. */
function paint(vnode) {
  // The first time, the page's static "Loading the remote..." goes: Preact renders next to what it
  // did not render itself, so the note would stay under every screen.
  if (!hasPainted) root.replaceChildren();
  hasPainted = true;
  render(vnode, root);
}

function show(state) {
  if (state.screen === "pairing") {
    paint(html`
      <${Pairing} message=${state.message} defaultName=${deviceName()}
        onPair=${async (otp, name) => {
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
    info = await api("GET", "/api/v1/info");
  } catch (error) {
    if (error.status === 401) {
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
    show({ screen: "unreachable", message: `Cannot reach the show machine: ${error.message}` });
    return;
  }
  const token = savedToken();
  const scopes = token ? scopesOf(token) : ALL_SCOPES;
  const host = location.hostname;
  live = new Live(`ws://${host}:${info.ports.ws}${info.websocket ?? "/v1"}`, {
    onRevoked: unpaired,
    onGone: moveToLiveRig,
  });
  globalThis.cueportRemote = { live, store };
  show({ screen: "remote", scopes });
  live.start();
}

/**
 * This rig stopped answering (its socket closed, a reconnect failed): the page moves to the other
 * rig of the group seen alive last (the leader first), saying where it came from. The page cannot
 * ask another rig first (its Content-Security-Policy keeps its requests to its own origin), so the
 * group is read every few seconds while live. A rig keeps its own pairings: on a rig this browser
 * has not paired with, the pairing screen says so.
 */
function moveToLiveRig() {
  const rig = store.rig?.others[0];
  if (!rig || rig.pages.length === 0) return;
  // An address of the family the page was opened with (an IPv6 one only for an IPv6 page).
  const v6 = location.hostname.startsWith("[");
  const page = rig.pages.find((p) => p.includes("//[") === v6) ?? rig.pages[0];
  location.assign(`${page}#from=${encodeURIComponent(store.rig.name)}`);
}

async function boot() {
  // A code in the fragment (the QR code of `cueport pair`): pair at once, then forget it.
  const fragment = new URLSearchParams(location.hash.slice(1));
  const otp = fragment.get("otp");
  // Moved here from another rig of the group: the status line says so.
  if (fragment.get("from")) setMovedFrom(fragment.get("from"));
  if (otp || fragment.get("from")) {
    history.replaceState(null, "", location.pathname);
  }
  if (otp) {
    try {
      await pair(otp, deviceName());
    } catch (error) {
      show({
        screen: "pairing",
        message: `The code from the QR code did not work: ${error.message}`,
      });
      return;
    }
  }
  await start();
}

requestAnimationFrame(animateBars);
boot();
