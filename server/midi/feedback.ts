/**
 * Feedback out: what a pad controller's LEDs and motor faders show, as MIDI.
 * Each Clip of the active Song lights its note (the default map's
 * `CLIP_BASE_NOTE + index`, and the notes the Project's bindings give a
 * Clip) with the velocity of its state in the map's colour scheme
 * (`FEEDBACK_SCHEMES`); each Control sends its value as the CC that drives
 * it. The wanted state is computed from the read model and compared with
 * what was sent, so only changes go out, and a pad whose Clip left the Song
 * goes dark.
 * @module
 */
import {
  CLIP_BASE_NOTE,
  CLIP_NOTES,
  CONTROL_BASE_CC,
  DATA_MAX,
  FEEDBACK_SCHEMES,
  type PadState,
} from "../../protocol/midi.ts";
import { CONTROL_IDS } from "../../protocol/model.ts";
import type { ReadModel } from "../core/mod.ts";
import { mapOf } from "./map.ts";
import type { MidiMessage } from "./messages.ts";

/** The actions whose note binding names a Clip whose state its pad shows. */
const CLIP_ACTIONS = new Set(["PLAY_CLIP_IN", "TRIGGER_CLIP_IN", "RESTART_CLIP_IN"]);

/** The feedback wanted now, by `note|channel|number` or `cc|channel|number`: the data value. */
function wanted(model: ReadModel): Map<string, number> {
  const out = new Map<string, number>();
  const pid = model.activeProjectId;
  const project = pid ? model.project(pid) : undefined;
  if (!pid || !project) return out;
  const map = mapOf(project);
  const scheme = FEEDBACK_SCHEMES[map.feedback] ?? FEEDBACK_SCHEMES.launchpad!;
  const play = model.playstate(pid);
  const states = new Map(play?.clips.map((c) => [c.clipID, c.state]) ?? []);
  const padOf = (clipId: string) => scheme[(states.get(clipId) ?? "stopped") as PadState];
  if (map.useDefault) {
    const song = play?.activeSongID ? project.songs.find((s) => s.id === play.activeSongID) : null;
    for (const [i, clipId] of (song?.clips ?? []).slice(0, CLIP_NOTES).entries()) {
      out.set(`note|${map.channel}|${CLIP_BASE_NOTE + i}`, padOf(clipId));
    }
    const controls = model.live(pid).controls;
    for (const [i, letter] of CONTROL_IDS.entries()) {
      const value = controls[letter];
      if (value === undefined) continue;
      const cc = Math.round(Math.min(1, Math.max(0, value)) * DATA_MAX);
      out.set(`cc|${map.channel}|${CONTROL_BASE_CC + i}`, cc);
    }
  }
  for (const b of map.bindings) {
    const clipId = b.params[0];
    if (b.kind !== "noteOn" || b.number === null || !CLIP_ACTIONS.has(b.action)) continue;
    if (typeof clipId !== "string" || !project.clips.some((c) => c.id === clipId)) continue;
    out.set(`note|${b.channel ?? map.channel}|${b.number}`, padOf(clipId));
  }
  return out;
}

/** The message that sends `value` for a key of `wanted`. */
function messageOf(key: string, value: number): MidiMessage {
  const [kind, channel, number] = key.split("|");
  const ch = Number(channel);
  const n = Number(number);
  if (kind === "cc") return { type: "controlChange", channel: ch, controller: n, value };
  return value === 0
    ? { type: "noteOff", channel: ch, note: n, velocity: 0 }
    : { type: "noteOn", channel: ch, note: n, velocity: value };
}

/** The feedback sent, and what changed since. */
export class MidiFeedback {
  #model: ReadModel;
  #sent = new Map<string, number>();

  /** Builds the feedback over the read model; nothing is sent until asked. */
  constructor(model: ReadModel) {
    this.#model = model;
  }

  /** The messages that bring participants from what was sent to the state now. */
  changes(): MidiMessage[] {
    const now = wanted(this.#model);
    const out: MidiMessage[] = [];
    for (const [key, value] of this.#sent) {
      // A pad whose Clip is gone goes dark; a CC keeps its last value.
      if (!now.has(key) && key.startsWith("note|") && value !== 0) out.push(messageOf(key, 0));
    }
    for (const [key, value] of now) {
      if (this.#sent.get(key) !== value) out.push(messageOf(key, value));
    }
    this.#sent = now;
    return out;
  }

  /** Every value of the state now (a participant joined). */
  full(): MidiMessage[] {
    this.#sent = wanted(this.#model);
    return [...this.#sent].map(([key, value]) => messageOf(key, value));
  }
}
