/**
 * MIDI messages to action calls: the Project's own bindings first (a binding
 * wins), then the default map of `protocol/midi.ts` when the Project keeps
 * it. What it gives is an action request for the catalog's `action`, run by
 * the transport through the one policy; it decides nothing about access.
 * @module
 */
import { ACTIONS } from "../../protocol/actions.ts";
import {
  CLIP_BASE_NOTE,
  CLIP_NOTES,
  CONTROL_BASE_CC,
  DATA14_MAX,
  DATA_MAX,
  DEFAULT_MIDI_MAP,
  LSB_OFFSET,
  type MidiBinding,
  type MidiMap,
  NAVIGATION_NOTES,
  TRANSPORT_ACTIONS,
} from "../../protocol/midi.ts";
import { CONTROL_IDS } from "../../protocol/action_rules.ts";
import type { Project } from "../../protocol/model.ts";
import type { ChannelMessage, MidiMessage, MidiSource } from "./messages.ts";

/** An action to run: the body of the catalog's `action`. */
export interface MidiCall {
  name: string;
  params: Array<string | number | boolean>;
  velocity?: number;
}

/** The actions that take a velocity (rule 4), by name. */
const TAKES_VELOCITY = new Set(ACTIONS.filter((a) => a.takesVelocity).map((a) => a.name));

/** What the map reads of the show: the active Project and its active Song's Clips. */
export interface MapContext {
  project: Project | undefined;
  /** The Clip ids of the active Song, in order (what the Clip notes index). */
  songClips: readonly string[];
}

/** The map in effect for a Project: its own, or the default when it has none. */
export function mapOf(project: Project | undefined): MidiMap {
  return project?.midi ?? DEFAULT_MIDI_MAP;
}

/** The message's kind as a binding names it, with its channel and number. */
function keyOf(m: MidiMessage): { kind: string; channel: number | null; number: number | null } {
  switch (m.type) {
    case "noteOn":
    case "noteOff":
      return { kind: m.type, channel: m.channel, number: m.note };
    case "controlChange":
      return { kind: m.type, channel: m.channel, number: m.controller };
    case "programChange":
      return { kind: m.type, channel: m.channel, number: m.program };
    default:
      return { kind: m.type, channel: null, number: null };
  }
}

/** Whether a binding matches a message. */
export function matches(binding: MidiBinding, message: MidiMessage): boolean {
  const key = keyOf(message);
  return binding.kind === key.kind &&
    (binding.channel === null || key.channel === null || binding.channel === key.channel) &&
    (binding.number === null || binding.number === key.number);
}

/** The call of one binding for a message, or null when it does not fire (a CC trigger below 64). */
export function bindingCall(binding: MidiBinding, message: MidiMessage): MidiCall | null {
  const call: MidiCall = { name: binding.action, params: [...binding.params] };
  if (message.type === "noteOn" && TAKES_VELOCITY.has(binding.action)) {
    call.velocity = message.velocity;
  }
  if (message.type === "controlChange") {
    if ((binding.value ?? "param") === "trigger") return message.value > DATA_MAX / 2 ? call : null;
    call.params.push(binding.min + (binding.max - binding.min) * message.value / DATA_MAX);
  }
  if (message.type === "programChange" && binding.number === null) {
    call.params.push(message.program);
  }
  return call;
}

/**
 * Reads MIDI through a Project's map. It keeps the coarse values of 14-bit
 * control pairs, per source and channel: a controller that sends the fine
 * value (CC n + 32) is read with 14 bits from then on. As MIDI 1.0 says, a
 * coarse value (MSB) takes effect at once, its fine value reading 0, and the
 * fine value (LSB) that follows refines it.
 */
export class MidiMapper {
  /** Coarse values by `source|channel|controller`, and whether a fine value came. */
  #coarse = new Map<string, { msb: number; isPaired: boolean }>();

  /**
   * The calls a message from `from` runs under the context's map (none: it is
   * not mapped); `from` keys the 14-bit pairs (one sender's pair is its own).
   */
  calls(message: MidiMessage, ctx: MapContext, from?: MidiSource): MidiCall[] {
    const map = mapOf(ctx.project);
    const bound = map.bindings.filter((b) => matches(b, message));
    if (bound.length > 0) {
      return bound.map((b) => bindingCall(b, message)).filter((c): c is MidiCall => c !== null);
    }
    if (!map.useDefault) return [];
    const call = this.#defaultCall(message, map, ctx, from);
    return call ? [call] : [];
  }

  #defaultCall(
    message: MidiMessage,
    map: MidiMap,
    ctx: MapContext,
    from: MidiSource | undefined,
  ): MidiCall | null {
    switch (message.type) {
      case "start":
      case "stop":
      case "continue":
        return { name: TRANSPORT_ACTIONS[message.type], params: [] };
      case "songSelect":
        return { name: "SONG_SELECT_IN", params: [message.song] };
      case "programChange":
        return message.channel === map.channel ? programCall(message.program, map, ctx) : null;
      case "noteOn":
      case "noteOff":
      case "controlChange":
        return message.channel === map.channel ? this.#channelCall(message, ctx, from) : null;
      default:
        return null;
    }
  }

  #channelCall(message: ChannelMessage, ctx: MapContext, from?: MidiSource): MidiCall | null {
    if (message.type === "noteOn") return noteOnCall(message.note, message.velocity);
    if (message.type === "noteOff") return noteOffCall(message.note, ctx);
    if (message.type === "controlChange") return this.#controlCall(message, from);
    return null;
  }

  /** CC 1-26 drive Controls A-Z (7-bit), with CC 33-58 as their fine values (14-bit). */
  #controlCall(
    m: { channel: number; controller: number; value: number },
    from: MidiSource | undefined,
  ): MidiCall | null {
    const isFine = m.controller >= CONTROL_BASE_CC + LSB_OFFSET &&
      m.controller < CONTROL_BASE_CC + LSB_OFFSET + CONTROL_IDS.length;
    const msbNumber = isFine ? m.controller - LSB_OFFSET : m.controller;
    const index = msbNumber - CONTROL_BASE_CC;
    const letter = CONTROL_IDS[index];
    if (index < 0 || letter === undefined) return null;
    const key = `${from?.kind ?? ""}|${from?.address ?? ""}|${m.channel}|${msbNumber}`;
    const pair = this.#coarse.get(key) ?? { msb: 0, isPaired: false };
    this.#coarse.set(key, pair);
    if (isFine) pair.isPaired = true;
    else pair.msb = m.value;
    const value = !pair.isPaired
      ? m.value / DATA_MAX
      : (pair.msb * (DATA_MAX + 1) + (isFine ? m.value : 0)) / DATA14_MAX;
    return { name: "SET_CONTROL", params: [letter, value] };
  }
}

function noteOnCall(note: number, velocity: number): MidiCall | null {
  const index = note - CLIP_BASE_NOTE;
  if (index >= 0 && index < CLIP_NOTES) {
    return { name: "PLAY_CLIP_BY_INDEX_IN", params: [index], velocity };
  }
  if (note === NAVIGATION_NOTES.previousSong) return { name: "PREV_SONG_IN", params: [] };
  if (note === NAVIGATION_NOTES.nextSong) return { name: "NEXT_SONG_IN", params: [] };
  if (note === NAVIGATION_NOTES.panic) return { name: "STOP_ALL_CLIPS_IN", params: [] };
  return null;
}

/** A note off releases the Clip of its pad when it is a Gate Clip; others ignore it. */
function noteOffCall(note: number, ctx: MapContext): MidiCall | null {
  const index = note - CLIP_BASE_NOTE;
  if (index < 0 || index >= CLIP_NOTES) return null;
  const clipId = ctx.songClips[index];
  const clip = clipId ? ctx.project?.clips.find((c) => c.id === clipId) : undefined;
  if (clip?.launchMode !== "Gate") return null;
  return { name: "RELEASE_CLIP_BY_INDEX_IN", params: [index] };
}

/**
 * Program change `p` selects the Song whose pgmId is `p + programBase` as a
 * number (`7`, `07` and `007` alike); none: the number as text, which the
 * player refuses as no such Song.
 */
function programCall(program: number, map: MidiMap, ctx: MapContext): MidiCall {
  const wanted = program + map.programBase;
  const song = ctx.project?.songs.find((s) =>
    s.pgmId !== null && /^\s*\d+\s*$/.test(s.pgmId) && Number(s.pgmId) === wanted
  );
  return { name: "SONG_SELECT_PGM_ID", params: [song?.pgmId ?? String(wanted)] };
}
