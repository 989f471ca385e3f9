/**
 * Feedback out: what a pad controller's LEDs and motor faders show, as MIDI.
 * Each Clip of the active Song lights its note (the default map's
 * `CLIP_BASE_NOTE + index`, and the notes the Project's bindings give a
 * Clip) with the velocity of its state in the map's colour scheme
 * (`FEEDBACK_SCHEMES`); each Control sends its value as the CC that drives
 * it. The wanted state is computed from the read model and compared with
 * what was sent, so only changes go out, and a pad whose Clip left the Song
 * goes dark. Feedback goes only to the participants the setting
 * `midiFeedback` names (by session name or address; `all` for every one;
 * empty, the default, for none) that are admitted now: a DAW in the session
 * is not sent notes it would record, and a revoked device gets nothing more.
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
import { CONTROL_IDS } from "../../protocol/action_rules.ts";
import type { Grant } from "../auth/mod.ts";
import type { ReadModel } from "../core/mod.ts";
import { mapOf } from "./map.ts";
import type { MidiEndpoint, MidiMessage, MidiSource } from "./messages.ts";

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

/** The `midiFeedback` entry that names every participant. */
export const ALL_PARTICIPANTS = "all";

/** Whether a `midiFeedback` list names `source`: `all`, its address, or its name (any case). */
export function isNamed(targets: readonly string[], source: MidiSource): boolean {
  const name = source.name.toLowerCase();
  return targets.some((t) =>
    t === ALL_PARTICIPANTS || t === source.address || t.toLowerCase() === name
  );
}

/** Whether two sources are the same participant (one machine may have several in a session). */
function isSame(a: MidiSource, b: MidiSource): boolean {
  return a.kind === b.kind && a.address === b.address && a.name === b.name;
}

/** A carrier feedback goes out on: an endpoint and, when it has them, its participants. */
export type FeedbackPort = MidiEndpoint & { participants?(): readonly MidiSource[] };

/** Options of `MidiFeedback`. */
export interface MidiFeedbackOptions {
  /** Setting midiFeedback: participant names or addresses, `all`; empty sends nothing. */
  targets: readonly string[];
  /** The grant a source has now (the admission's), null when it is not (or no longer) admitted. */
  grantOf(source: MidiSource): Grant | null;
}

/** The feedback sent, what changed since, and who gets it. */
export class MidiFeedback {
  #model: ReadModel;
  #o: MidiFeedbackOptions;
  #sent = new Map<string, number>();

  /** Builds the feedback over the read model; nothing is sent until asked. */
  constructor(model: ReadModel, options: MidiFeedbackOptions) {
    this.#model = model;
    this.#o = options;
  }

  /** Whether feedback goes to anyone (midiFeedback names someone). */
  get isOn(): boolean {
    return this.#o.targets.length > 0;
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

  /** Every value of the state now (a participant joined); the others' state is not touched. */
  full(): MidiMessage[] {
    return [...wanted(this.#model)].map(([key, value]) => messageOf(key, value));
  }

  /** Whether `source` gets feedback: named by midiFeedback, admitted now, allowed to view. */
  isTarget(source: MidiSource): boolean {
    if (!isNamed(this.#o.targets, source)) return false;
    const grant = this.#o.grantOf(source);
    return grant !== null && (!grant.scopes || grant.scopes.includes("view"));
  }

  /**
   * Sends `messages` on `port` to its targets (`only`: to that participant if
   * it is one). A port without `sendTo` is sent them only when every
   * participant it has is a target: feedback never reaches one not chosen.
   */
  deliver(port: FeedbackPort, messages: readonly MidiMessage[], only?: MidiSource): void {
    if (messages.length === 0 || !this.isOn) return;
    const present = port.participants?.() ?? [];
    const to = (only ? [only] : present).filter((p) => this.isTarget(p));
    if (to.length === 0) return;
    if (port.sendTo) port.sendTo(messages, to);
    else if (present.every((p) => to.some((t) => isSame(t, p)))) port.send(messages);
  }
}
