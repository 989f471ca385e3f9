// @ts-check
// The screens of the web remote (Preact components written with htm: no build step).

import { html, useEffect, useRef, useState } from "./preact.js";
import { downProps, goProps, holdProps } from "./gestures.js";
import { thumbnailUrl } from "./api.js";
import { Preview } from "./preview.js";

/** @typedef {import("./api.js").ProjectView} ProjectView */
/** @typedef {import("./api.js").ClipView} ClipView */
/** @typedef {import("./api.js").ActionParams} ActionParams */
/** @typedef {import("./gestures.js").Velocity} Velocity */
/** @typedef {import("./live.js").Rig} Rig */
/** @typedef {import("../../../protocol/state.ts").PlayStateView} PlayStateView */
/** @typedef {import("../../../protocol/state.ts").ClipPlay} ClipPlay */
/** @typedef {import("../../../protocol/state.ts").AppState} AppState */
/**
 * Runs an action (`app.js`): over the socket while it is live, else over HTTP.
 * @typedef {(name: string, params: ActionParams, velocity?: Velocity) => Promise<unknown>} Run
 */
/**
 * What the screens of the active Project are given.
 * @typedef {object} ShowProps
 * @property {ProjectView} project
 * @property {PlayStateView | null} playstate
 * @property {boolean} canControl
 * @property {Run} run
 */
/**
 * An `input` of a text field (`currentTarget`: the field).
 * @typedef {Event & {currentTarget: HTMLInputElement}} FieldInput
 */

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("");

/**
 * The connection state, always visible: live, connecting, offline (retrying); in a rig group, the
 * rig it is on (and the one it moved from).
 * @param {{conn: string, note: string, rig: Rig | null}} props
 */
export function ConnectionBadge({ conn, note, rig }) {
  const label = /** @type {Record<string, string>} */ ({
    live: "Live",
    connecting: "Connecting",
    offline: "Offline, retrying",
  })[conn] ??
    conn;
  const on = rig && `rig ${rig.name}${rig.from ? ` (moved from ${rig.from})` : ""}`;
  return html`<span class="conn conn-${conn}" role="status" data-conn=${conn} title=${note}>
    <span class="dot" aria-hidden="true"></span>${label}${
    on &&
    html`<span class="rig" data-rig=${rig.name}>, on ${on}</span>`
  }
  </span>`;
}

/**
 * The pairing screen: the 6-digit code from `cueport pair`, and a name for this device.
 * @param {object} props
 * @param {string} [props.message] why pairing is asked (a revoked token, say)
 * @param {(otp: string, name: string) => Promise<void>} props.onPair
 * @param {string} props.defaultName
 */
export function Pairing({ message, onPair, defaultName }) {
  const [otp, setOtp] = useState("");
  const [name, setName] = useState(defaultName);
  const [error, setError] = useState("");
  const [isBusy, setBusy] = useState(false);
  /** @param {SubmitEvent} event */
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError("");
    try {
      await onPair(otp.trim(), name.trim() || defaultName);
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="pairing">
    <h1>Pair this device</h1>
    ${message && html`<p class="note" role="alert" id="pair-message">${message}</p>`}
    <p>On the show machine run <code>cueport pair</code> (or read the code on its screen), then enter the
      6-digit code here.</p>
    <form onSubmit=${submit}>
      <label for="otp">Pairing code</label>
      <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}"
        maxlength="6" required value=${otp}
        onInput=${(/** @type {FieldInput} */ e) => setOtp(e.currentTarget.value)} />
      <label for="device-name">Name of this device</label>
      <input id="device-name" name="deviceName" maxlength="64" value=${name}
        onInput=${(/** @type {FieldInput} */ e) => setName(e.currentTarget.value)} />
      <button type="submit" class="primary" disabled=${isBusy}>Pair</button>
      <p class="error" role="alert" id="pair-error">${error}</p>
    </form>
  </main>`;
}

/**
 * Sends values one at a time: while one is on its way, only the latest waiting one follows.
 * @template T
 * @param {(value: T) => Promise<unknown>} send
 * @returns {(value: T) => void}
 */
function latestSender(send) {
  let isBusy = false;
  /** @type {T | null} */
  let next = null;
  const pump = () => {
    if (next === null) {
      isBusy = false;
      return;
    }
    const value = next;
    next = null;
    isBusy = true;
    send(value).finally(pump);
  };
  return (value) => {
    next = value;
    if (!isBusy) pump();
  };
}

/**
 * A fader (0-1) with live feedback: the value from the show, except while the finger is on it.
 * @param {object} props
 * @param {string} props.id
 * @param {string} props.label
 * @param {number | undefined} props.value
 * @param {boolean} props.disabled
 * @param {(value: number) => Promise<unknown>} props.onChange
 * @param {string} [props.detail]
 */
export function Fader({ id, label, value, disabled, onChange, detail }) {
  const input = useRef(/** @type {HTMLInputElement | null} */ (null));
  const isDragging = useRef(false);
  const sender = useRef(/** @type {((value: number) => void) | null} */ (null));
  // Set at the first render: `onInput` sends through it.
  sender.current ??= latestSender((v) => onChange(v));
  useEffect(() => {
    if (input.current && !isDragging.current) input.current.value = String(value ?? 0);
  });
  return html`
    <div class="fader">
      <label for=${id}><span class="fader-name">${label}</span>${detail &&
        html`<span class="fader-detail">${detail}</span>`}</label>
      <input id=${id} type="range" min="0" max="1" step="0.001" disabled=${disabled}
        data-control=${id} ref=${input}
        onPointerDown=${() => (isDragging.current = true)}
        onPointerUp=${() => (isDragging.current = false)}
        onPointerCancel=${() => (isDragging.current = false)}
        onInput=${(/** @type {FieldInput} */ e) =>
          /** @type {(value: number) => void} */ (sender.current)(Number(e.currentTarget.value))} />
      <output for=${id} class="fader-value">${(value ?? 0).toFixed(2)}</output>
    </div>
  `;
}

/**
 * Where a playing Clip is now, 0-1, run on from the last report on the page's clock.
 * @param {ClipPlay | undefined} entry
 * @param {number} receivedAt
 * @param {number} now
 * @returns {number}
 */
export function progressOf(entry, receivedAt, now) {
  if (!entry || !(entry.duration > 0)) return 0;
  let position = entry.position;
  if (entry.state === "playing") {
    const sign = entry.direction === "backward" ? -1 : 1;
    position += sign * (entry.speed ?? 1) * (now - receivedAt) / 1000;
    if (entry.loop) position = ((position % entry.duration) + entry.duration) % entry.duration;
  }
  return Math.max(0, Math.min(1, position / entry.duration));
}

/** @param {{projectId: string, fileId: string | null}} props */
function Thumb({ projectId, fileId }) {
  const [src, setSrc] = useState(/** @type {string | null} */ (null));
  useEffect(() => {
    let isCurrent = true;
    if (fileId) {
      thumbnailUrl(projectId, fileId, 192).then((url) => isCurrent && setSrc(url), () => {});
    }
    return () => (isCurrent = false);
  }, [projectId, fileId]);
  return src
    ? html`<img class="thumb" src=${src} alt="" width="192" height="192" />`
    : html`<span class="thumb thumb-empty" aria-hidden="true"></span>`;
}

/**
 * One Clip of the grid: a go button, or a hold button for Gate mode.
 * @param {object} props
 * @param {ClipView} props.clip
 * @param {ClipPlay | undefined} props.entry
 * @param {string} props.projectId
 * @param {boolean} props.canControl
 * @param {Run} props.run
 */
function ClipTile({ clip, entry, projectId, canControl, run }) {
  const state = entry?.state ?? "stopped";
  const isGate = clip.launchMode === "Gate";
  const press = canControl
    ? isGate
      ? holdProps(
        (velocity) => run("TRIGGER_CLIP_IN", [clip.clipID], velocity),
        () => run("RELEASE_CLIP_IN", [clip.clipID]),
      )
      : goProps((velocity) => run("TRIGGER_CLIP_IN", [clip.clipID], velocity))
    : {};
  const hint = isGate ? "hold to play" : "tap to trigger";
  return html`
    <button class="clip state-${state}" data-clip=${clip.clipID} data-state=${state}
      aria-label=${`${clip.name}, ${state}${canControl ? `, ${hint}` : ""}`}
      aria-disabled=${canControl ? "false" : "true"} ...${press}>
      <${Thumb} projectId=${projectId} fileId=${clip.fileId} />
      <span class="clip-name">${clip.name}</span>
      <span class="clip-state">${isGate ? "Gate " : ""}${state}</span>
      <span class="bar" aria-hidden="true"><span class="bar-fill" data-bar=${clip
        .clipID}></span></span>
    </button>
  `;
}

/**
 * The current Song's Clips as a grid of thumbnails with live state and position bars.
 * @param {ShowProps} props
 */
export function ClipGrid({ project, playstate, canControl, run }) {
  const songId = playstate?.activeSongID;
  // A Clip of no Song has no index (null, which counts as 0 here).
  const clips = project.clips.filter((c) => c.songID === songId).sort((a, b) =>
    /** @type {number} */ (a.index) - /** @type {number} */ (b.index)
  );
  const entries = new Map((playstate?.clips ?? []).map((e) => [e.clipID, e]));
  return html`<section class="clips" aria-label="Clips of the current Song">
    ${clips.length === 0 && html`<p class="note">This Song has no Clips</p>`}
    ${
    clips.map((clip) =>
      html`
        <${ClipTile} key=${clip.clipID} clip=${clip} entry=${entries.get(clip.clipID)}
          projectId=${project.projectId} canControl=${canControl} run=${run} />
      `
    )
  }
  </section>`;
}

/**
 * The Songs of the active Project: select, previous/next, by PGM id.
 * @param {ShowProps} props
 */
export function Songs({ project, playstate, canControl, run }) {
  const [pgm, setPgm] = useState("");
  const activeId = playstate?.activeSongID;
  const songs = [...project.songs].sort((a, b) => a.position - b.position);
  return html`
    <section class="songs" aria-label="Songs">
      <div class="row">
        <button class="big" disabled=${!canControl} ...${goProps(() =>
          run("PREV_SONG_IN", [])
        )}>Previous</button>
        <button class="big" disabled=${!canControl} ...${goProps(() =>
          run("NEXT_SONG_IN", [])
        )}>Next</button>
      </div>
      <form class="row pgm" onSubmit=${(/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        if (pgm) run("SONG_SELECT_PGM_ID", [pgm]);
      }}>
        <label for="pgm">PGM id</label>
        <input id="pgm" inputmode="numeric" maxlength="8" value=${pgm} disabled=${!canControl}
          onInput=${(/** @type {FieldInput} */ e) => setPgm(e.currentTarget.value)} />
        <button type="submit" disabled=${!canControl}>Go</button>
      </form>
      <ol class="song-list">
          ${songs.map((song) =>
            html`
              <li key=${song.songID}>
                <button class=${`song ${song.songID === activeId ? "active" : ""}`} data-song=${song
                  .songID}
                  aria-current=${song.songID === activeId
                    ? "true"
                    : "false"} disabled=${!canControl}
                  ...${goProps(() => run("SONG_SELECT_BY_ID", [song.songID]))}>
                  <span class="pgm-id">${song.pgmId ?? ""}</span>
                  <span class="song-title">${song.title}</span>
                  <span class="song-count">${song.clipCount} clips</span>
                </button>
              </li>
            `
          )}
        </ol>
    </section>
  `;
}

/**
 * Play, pause, stop and panic (with confirmation): stop and panic act on touch-down.
 * @param {{playstate: PlayStateView | null, canControl: boolean, run: Run}} props
 */
export function Transport({ playstate, canControl, run }) {
  const [isConfirming, setConfirming] = useState(false);
  const songState = playstate?.song?.state ?? "stopped";
  return html`<section class="transport" aria-label="Transport">
    <button class="big play" disabled=${!canControl} aria-pressed=${songState === "playing"}
      ...${goProps(() => run("PLAY_IN", []))}>Play</button>
    <button class="big" disabled=${!canControl} aria-pressed=${songState === "paused"}
      ...${goProps(() => run("PAUSE_TOGGLE_IN", []))}>Pause</button>
    <button class="big stop" disabled=${!canControl} ...${
    downProps(() => run("STOP_IN", []))
  }>Stop</button>
    <button class="big panic" disabled=${!canControl} ...${
    downProps(() => setConfirming(true))
  }>Panic</button>
    ${
    isConfirming && html`
      <div class="confirm" role="alertdialog" aria-label="Confirm panic">
        <p>Panic reloads every output window of the show.</p>
        <button class="big panic" autofocus ...${downProps(() => {
          setConfirming(false);
          run("PANIC", []);
        })}>Panic now</button>
        <button class="big" ...${downProps(() => setConfirming(false))}>Cancel</button>
      </div>
    `
  }
  </section>`;
}

/**
 * Controls A-Z as faders with live feedback.
 * @param {ShowProps} props
 */
export function Controls({ project, playstate, canControl, run }) {
  const named = new Map((project.controls ?? []).map((c) => [c.controlID, c.name]));
  const values = playstate?.controls ?? {};
  return html`<section class="controls" aria-label="Controls A to Z">
    ${
    LETTERS.map((letter) =>
      html`
        <${Fader} key=${letter} id=${`control-${letter}`} label=${letter}
          detail=${named.get(letter) ?? ""} value=${values[letter]} disabled=${!canControl}
          onChange=${(/** @type {number} */ v) => run("SET_CONTROL", [letter, v])} />
      `
    )
  }
  </section>`;
}

/**
 * The output's live picture, output level, mute, full screen and recording.
 * @param {{appState: AppState | null, canControl: boolean, run: Run}} props
 */
export function System({ appState, canControl, run }) {
  const recording = appState?.recording?.state ?? "idle";
  return html`
    <section class="system" aria-label="Output and recording">
      <${Preview} />
      <${Fader} id="output-level" label="Output level" value=${appState?.volume}
        disabled=${!canControl} onChange=${(/** @type {number} */ v) =>
          run("OUTPUT_LEVEL_IN", [v])} />
      <div class="row">
        <button class="big" data-toggle="mute" aria-pressed=${appState?.muted ? "true" : "false"}
          disabled=${!canControl} ...${goProps(() => run("MUTE_TOGGLE", []))}>
            ${appState?.muted ? "Muted" : "Mute"}</button>
        <button class="big" data-toggle="fullscreen"
          aria-pressed=${appState?.fullScreen ? "true" : "false"} disabled=${!canControl}
          ...${goProps(() => run("FULLSCREEN_TOGGLE", []))}>Full screen</button>
      </div>
      <div class="row">
          <span class=${`rec rec-${recording}`} data-recording=${recording} role="status">
            Recording: ${recording}</span>
          <button class="big" disabled=${!canControl} aria-pressed=${recording !== "idle"}
            ...${goProps(() => run("RECORD_TOGGLE", ["now"]))}>
            ${recording === "idle" ? "Record" : "Stop recording"}</button>
          ${recording === "idle" &&
            html`
              <button class="big" disabled=${!canControl}
                ...${goProps(() => run("RECORD_TOGGLE", ["next-trigger"]))}>Arm</button>
            `}
        </div>
    </section>
  `;
}

/**
 * The set list editor (tokens with `edit`): move Songs up and down, undo, redo.
 * @param {object} props
 * @param {ProjectView} props.project
 * @param {(name: string, params: Record<string, unknown>) => Promise<unknown>} props.doEdit
 */
export function SetList({ project, doEdit }) {
  const songs = [...project.songs].sort((a, b) => a.position - b.position);
  return html`
    <section class="setlist" aria-label="Set list">
      <h2>Songs of this show</h2>
      <div class="row">
        <button class="big" data-edit="undo" ...${goProps(() =>
          doEdit("project.undo", {})
        )}>Undo</button>
        <button class="big" data-edit="redo" ...${goProps(() =>
          doEdit("project.redo", {})
        )}>Redo</button>
      </div>
      <ol class="song-list">
          ${songs.map((song, i) =>
            html`
              <li key=${song.songID} class="setlist-row" data-setlist=${song.songID}>
                <span class="song-title">${i + 1}. ${song.title}</span>
                <button aria-label=${`Move ${song.title} up`} disabled=${i === 0}
                  ...${goProps(() =>
                    doEdit("song.move", { songID: song.songID, position: i - 1 })
                  )}>Up</button>
                <button aria-label=${`Move ${song.title} down`} disabled=${i === songs.length - 1}
                  ...${goProps(() =>
                    doEdit("song.move", { songID: song.songID, position: i + 1 })
                  )}>Down</button>
              </li>
            `
          )}
        </ol>
    </section>
  `;
}
