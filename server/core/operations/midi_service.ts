/**
 * What the MIDI operations need of the MIDI transport (`server/midi/`
 * provides it, as `ctx.midi`): the core's own description of it, so the core
 * never imports a transport.
 * @module
 */
import type { MidiLearnAnswer, MidiLearnRequest } from "../../../protocol/midi.ts";

/** What a client asks to learn (`midiLearn`'s input, `protocol/midi.ts`). */
export type MidiLearnInput = MidiLearnRequest;

/** How a learn ended (`protocol/midi.ts`; the operation adds the revision). */
export type { MidiLearnAnswer };

/** The MIDI transport, as the MIDI operations use it. */
export interface MidiService {
  /** `GET /api/v1/midi` (`MidiStatusView`). */
  status(): unknown;
  /** Waits for the next bindable message; the outcome, with the binding made. */
  learn(input: MidiLearnInput, signal: AbortSignal | undefined): Promise<MidiLearnAnswer>;
  /** Ends the waiting learn; false when none waited. */
  cancelLearn(): boolean;
  /** Approves or refuses a source waiting for approval. */
  decide(
    requestId: string,
    approve: boolean,
    scopes: Array<"view" | "control" | "edit"> | undefined,
  ): Promise<{ deviceId: string | null }>;
}
