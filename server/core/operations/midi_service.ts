/**
 * What the MIDI operations need of the MIDI transport (`server/midi/`
 * provides it, as `ctx.midi`): the core's own description of it, so the core
 * never imports a transport.
 * @module
 */
import type { MidiBinding } from "../../../protocol/midi.ts";

/** What a client asks to learn (`midiLearn`'s input). */
export interface MidiLearnInput {
  action: string;
  params: Array<string | number | boolean>;
  value?: "param" | "trigger" | undefined;
  min?: number | undefined;
  max?: number | undefined;
  projectId?: string | undefined;
}

/** How a learn ended. */
export type MidiLearnAnswer =
  | { learned: true; binding: MidiBinding; message: Record<string, unknown> }
  | { learned: false; reason: "cancelled" | "replaced" };

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
