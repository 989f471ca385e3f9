// @ts-check
// The MIDI panel (docs/midi.md): what MIDI is connected, the last message received, the Project's
// bindings, and learning: pick an action, tap Learn, press a pad or move a fader on the controller.

import { html, useEffect, useState } from "./preact.js";
import { api } from "./api.js";
import { goProps } from "./gestures.js";

/** @typedef {import("./api.js").ProjectView} ProjectView */
/** @typedef {import("./api.js").ActionParams} ActionParams */
/** @typedef {import("../../../protocol/midi.ts").MidiBinding} MidiBinding */
/** @typedef {import("../../../protocol/midi.ts").MidiParticipant} MidiParticipant */
/** @typedef {import("../../../protocol/midi.ts").MidiLearnAnswer} MidiLearnAnswer */
/**
 * `GET /api/v1/midi` (`server/core/operations/midi.ts`): `protocol/midi.ts`'s fields and the
 * participants.
 * @typedef {import("../../../protocol/midi.ts").MidiStatusFields & {participants: MidiParticipant[]}} MidiStatus
 */
/**
 * A MIDI message as the status shows it (`server/midi/mod.ts`): its type, channel and numbers,
 * and its source.
 * @typedef {object} MidiMessageView
 * @property {string} type
 * @property {number} [channel]
 * @property {number} [note]
 * @property {number} [controller]
 * @property {number} [program]
 * @property {number} [velocity]
 * @property {number} [value]
 * @property {{name?: string}} [from]
 */
/**
 * An action a binding can be learned for.
 * @typedef {{label: string, action: string, params: ActionParams}} Choice
 */

const LETTERS = Array.from({ length: 26 }, (_, i) => String.fromCharCode(65 + i));

/**
 * The actions a binding can be learned for: the current Song's Clips, Controls, transport.
 * @param {ProjectView} project
 * @returns {Choice[]}
 */
function choicesOf(project) {
  const clips = project.clips.map((c) => ({
    label: `Trigger ${c.name || c.clipID}`,
    action: "TRIGGER_CLIP_IN",
    params: [c.clipID],
  }));
  const controls = LETTERS.map((l) => ({
    label: `Control ${l}`,
    action: "SET_CONTROL",
    params: [l],
  }));
  const transport = ["PLAY_IN", "STOP_IN", "NEXT_SONG_IN", "PREV_SONG_IN", "STOP_ALL_CLIPS_IN"]
    .map((action) => ({ label: action, action, params: [] }));
  return [...transport, ...clips, ...controls];
}

/**
 * A message as one line: `noteOn ch1 36 vel 64`.
 * @param {MidiMessageView | null | undefined} m
 */
function messageText(m) {
  if (!m) return "none yet";
  const ch = m.channel ? ` ch${m.channel}` : "";
  const number = m.note ?? m.controller ?? m.program ?? "";
  const value = m.velocity ?? m.value;
  return `${m.type}${ch} ${number}${value === undefined ? "" : ` = ${value}`} from ${
    m.from?.name ?? "?"
  }`;
}

/**
 * A participant as the operator reads it: `Desk (lost 2, recovered 2, 1.2 ms)` for a network one.
 * @param {MidiParticipant} p
 */
function participantText(p) {
  if (p.kind !== "rtp" || p.lost === undefined) return p.name;
  // An rtp participant with its counters has `latencyMs` (null before a clock sync).
  const latency = p.latencyMs === null
    ? ""
    : `, ${/** @type {number} */ (p.latencyMs).toFixed(1)} ms`;
  return `${p.name} (lost ${p.lost}, recovered ${p.recovered}${latency})`;
}

/**
 * A binding as one line.
 * @param {MidiBinding} b
 */
function bindingText(b) {
  const ch = b.channel === null ? "any channel" : `ch${b.channel}`;
  return `${b.kind} ${b.number ?? "*"} (${ch}) -> ${b.action} ${b.params.join(", ")}`;
}

/** The status of `GET /api/v1/midi`, read every second while the panel is shown. */
function useStatus() {
  const [status, setStatus] = useState(/** @type {MidiStatus | null} */ (null));
  useEffect(() => {
    let isOn = true;
    const read = () =>
      api("GET", "/api/v1/midi").then(
        (s) => isOn && setStatus(/** @type {MidiStatus} */ (s)),
        () => {},
      );
    read();
    const timer = setInterval(read, 1000);
    return () => {
      isOn = false;
      clearInterval(timer);
    };
  }, []);
  return status;
}

/**
 * The panel. `fail` shows an error.
 * @param {{project: ProjectView, fail: (error: unknown) => unknown}} props
 */
export function Midi({ project, fail }) {
  const status = useStatus();
  const choices = choicesOf(project);
  const [chosen, setChosen] = useState(0);
  const [learning, setLearning] = useState(false);
  const [learned, setLearned] = useState(/** @type {string | null} */ (null));
  const learn = async () => {
    // `chosen` is an index of `choices` (the select's).
    const choice = /** @type {Choice} */ (choices[chosen]);
    setLearning(true);
    setLearned(null);
    try {
      const answer = /** @type {MidiLearnAnswer} */ (
        await api("POST", "/api/v1/midi/learn", {
          action: choice.action,
          params: choice.params,
        })
      );
      setLearned(answer.learned ? bindingText(answer.binding) : `Not learned (${answer.reason})`);
    } catch (error) {
      fail(error);
    } finally {
      setLearning(false);
    }
  };
  const cancel = () => api("POST", "/api/v1/midi/learn/cancel", {}).catch(fail);
  const participants = status?.participants ?? [];
  return html`
    <section class="midi" aria-label="MIDI">
      <p class="note" data-midi="participants">${participants.length === 0
        ? "No MIDI device connected"
        : participants.map(participantText).join(", ")}</p>
      <p class="note" data-midi="last">Last message: ${messageText(
        /** @type {MidiMessageView | null | undefined} */ (status?.lastMessage),
      )}</p>
      <div class="row">
        <select aria-label="Action to learn" disabled=${learning}
          onChange=${(/** @type {Event & {target: HTMLSelectElement}} */ e) =>
            setChosen(Number(e.target.value))}>
          ${choices.map((c, i) =>
            html`<option value=${i} selected=${i === chosen}>${c.label}</option>`
          )}
        </select>
        ${learning
          ? html`<button class="big" data-midi="cancel" ...${goProps(cancel)}>Cancel</button>`
          : html`<button class="big" data-midi="learn" ...${goProps(learn)}>Learn</button>`}
      </div>
      ${learning && html`<p class="note" role="status">Press a pad or move a fader...</p>`}
      ${learned && html`<p class="note" role="status" data-midi="learned">${learned}</p>`}
      <ul class="bindings" aria-label="MIDI bindings">
        ${(status?.map?.bindings ?? []).map((b) => html`<li>${bindingText(b)}</li>`)}
      </ul>
    </section>
  `;
}
