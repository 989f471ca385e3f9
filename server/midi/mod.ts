/**
 * The MIDI transport (docs/midi.md): messages from every endpoint (a network
 * session, a local port) are admitted by their source (`admit.ts`), offered
 * to a waiting learn (`learn.ts`), else read through the Project's map
 * (`map.ts`) into action calls that run through the one policy, values
 * coalesced per target (`values.ts`). Timecode goes to the timecode reader
 * given; the Clip states and Control values go back out (`feedback.ts`).
 * Nothing in the core knows MIDI.
 * @module
 */
import type { Grant } from "../auth/mod.ts";
import {
  type Core,
  CueportError,
  type MidiLearnAnswer,
  type MidiLearnInput,
  type MidiService,
  operationNamed,
  Policy,
  unexpectedOf,
} from "../core/mod.ts";
import type { DeviceRegistry } from "../auth/devices.ts";
import type { TokenCheck } from "../core/mod.ts";
import type { UpdateBatch } from "../core/mod.ts";
import type { MidiParticipant, MidiStatusFields } from "../../protocol/midi.ts";
import { isLocalSource, MidiAdmission } from "./admit.ts";
import { MidiFeedback } from "./feedback.ts";
import { MidiLearn } from "./learn.ts";
import { type MapContext, mapOf, MidiMapper } from "./map.ts";
import type { MidiEndpoint, MidiMessage, MidiSource } from "./messages.ts";
import type { LocalPorts } from "./local.ts";
import { MidiCalls, valueKey } from "./values.ts";
import { timecodeInput, type TimecodeSample } from "./timecode.ts";

export { isLocalSource, MidiAdmission, type MidiRequest } from "./admit.ts";
export { LEARN_CAP_MS, type LearnOutcome, type LearnRequest } from "./learn.ts";

/**
 * An endpoint as the transport uses it: `MidiEndpoint` and, when it has
 * them, the participants it is connected to and a hook told when one joins
 * (the transport then sends it every feedback value).
 */
export interface MidiPort extends MidiEndpoint {
  /** Sets the one handler told when a participant joins. */
  onJoined?(handler: (source: MidiSource) => void): void;
  /** The participants connected now (a network session's with their counters). */
  participants?(): readonly MidiParticipant[];
  /** Datagrams dropped as over their sender's budget (a network session). */
  readonly overBudget?: number;
  /** The output's local ports, for the status (`local.ts`). */
  localPorts?(): LocalPorts;
}

/** What reads timecode (the MTC reader, `server/midi/timecode.ts`). */
export interface TimecodeSink {
  feed(messages: readonly MidiMessage[], from: MidiSource): void;
}

/** Options of the MIDI server. */
export interface MidiServerOptions {
  /** The one policy every transport runs operations through. */
  policy: Policy;
  /** Who may send (also the network session's `admit`). */
  admission: MidiAdmission;
  /** Who gets feedback (setting midiFeedback: names, addresses, `all`; default none). */
  feedback?: readonly string[];
  /** Where quarter frames and MTC full frames go. */
  timecode?: TimecodeSink | undefined;
  /** Where faults are logged with their stack; the service logs them at error. */
  logFault?: (message: string) => void;
}

/** The last message received, for the status and the learn panel. */
export interface LastMessage {
  message: MidiMessage;
  from: MidiSource;
  at: string;
}

const ACTION = operationNamed("action");
const TIMECODE = operationNamed("timecode");

/** Messages that run nothing and are not shown as the last message. */
const CHATTER = new Set(["clock", "activeSensing"]);

/** Whether a message is timecode: a quarter frame, or an MTC full frame (F0 7F id 01 01 ...). */
export function isTimecode(m: MidiMessage): boolean {
  if (m.type === "quarterFrame") return true;
  if (m.type !== "sysex") return false;
  const d = m.data;
  return d.length >= 8 && d[0] === 0x7f && d[2] === 0x01 && d[3] === 0x01;
}

/** The MIDI transport: one per service, over every endpoint attached. */
export class MidiServer implements MidiService {
  #core: Core;
  #o: MidiServerOptions;
  #endpoints: MidiPort[] = [];
  #mapper = new MidiMapper();
  #calls = new MidiCalls();
  #learn = new MidiLearn();
  #feedback: MidiFeedback;
  #unsubscribe: () => void;
  #last: LastMessage | null = null;
  /** Messages received, refused (source not admitted), and calls that failed, since start. */
  counts = { received: 0, refused: 0, failed: 0 };
  /** The last call that failed: its action and why. */
  lastError: { action: string; code: string; message: string } | null = null;

  /** Subscribes to the core's event bus for feedback. */
  constructor(core: Core, options: MidiServerOptions) {
    this.#core = core;
    this.#o = options;
    const grantOf = (s: MidiSource) => options.admission.grantOf(s);
    this.#feedback = new MidiFeedback(core.model, { targets: options.feedback ?? [], grantOf });
    this.#unsubscribe = !this.#feedback.isOn
      ? () => {}
      : core.bus.subscribe((batch) => this.#onBatch(batch));
  }

  /** Takes the messages of an endpoint, and sends it feedback. */
  attach(endpoint: MidiPort): void {
    this.#endpoints.push(endpoint);
    endpoint.onMessages((messages, from) => this.receive(messages, from));
    endpoint.onJoined?.((s) => this.#feedback.deliver(endpoint, this.#feedback.full(), s));
    this.#feedback.deliver(endpoint, this.#feedback.full());
  }

  /** Participants connected now, over every endpoint (`/api/v1/info`). */
  get participantCount(): number {
    return this.#endpoints.reduce((n, e) => n + (e.participants?.().length ?? 0), 0);
  }

  /** The admission rule (pending requests, decisions). */
  get admission(): MidiAdmission {
    return this.#o.admission;
  }

  /** Handles messages from a source: admitted, learned or mapped, run. */
  receive(messages: readonly MidiMessage[], from: MidiSource): void {
    const grant = this.#o.admission.grantOf(from);
    if (grant === null) {
      this.counts.refused += messages.length;
      this.#o.admission.admit(from); // listed for the operator
      return;
    }
    const timecode = messages.filter(isTimecode);
    if (timecode.length > 0) this.#o.timecode?.feed(timecode, from);
    // A learn binds only what its source may run: the action needs control (a viewer is not taken).
    const mayLearn = this.#o.policy.permits(grant, ACTION, isLocalSource(from));
    for (const message of messages) {
      if (CHATTER.has(message.type) || isTimecode(message)) continue;
      this.counts.received++;
      this.#last = { message, from, at: new Date().toISOString() };
      try {
        if (mayLearn && this.#learn.offer(message, from)) continue;
        for (const call of this.#mapper.calls(message, this.#context(), from)) {
          this.#run(call, from, grant);
        }
      } catch (error) {
        // A message no rule foresaw fails alone: the endpoint's loop never sees it.
        this.#fail(message.type, error);
      }
    }
  }

  /**
   * Runs a sample of the timecode reader through the one policy, as the
   * source that sent the code (the `timecode` operation; its failure is
   * counted as a call's).
   */
  timecode(sample: TimecodeSample, from: MidiSource): void {
    const grant = this.#o.admission.grantOf(from);
    if (grant === null) return; // `receive` refused its messages already
    const caller = { address: from.address, isLocal: isLocalSource(from), grant };
    const where = "MIDI timecode";
    // The sample's age is measured here, just before it is handed over, on real time: a player
    // on a virtual clock (tests) has no real time to correct by, so its samples are of age 0.
    const measured = () => this.#core.model.isClockVirtual ? sample.at : undefined;
    Promise.resolve()
      .then(() =>
        this.#o.policy.invoke(TIMECODE, caller, timecodeInput(sample, measured()), { where })
      )
      .catch((error) => this.#fail("timecode", error));
  }

  /**
   * Waits for the next message from an admitted source to bind to `request`
   * (`learn.ts`); the binding is the answer, written by the caller's edit.
   */
  async learn(request: MidiLearnInput, signal?: AbortSignal): Promise<MidiLearnAnswer> {
    const outcome = await this.#learn.wait(request, signal);
    if (!outcome.learned) return outcome;
    const { binding, message, from } = outcome;
    const at = new Date().toISOString();
    return { learned: true, binding, message: jsonMessage({ message, from, at }) };
  }

  /** Ends the waiting learn; false when none waited. */
  cancelLearn(): boolean {
    return this.#learn.cancel();
  }

  /**
   * Approves or refuses a source waiting for approval (`admit.ts`).
   * @throws {CueportError} NOT_FOUND when no such request waits
   */
  decide(
    requestId: string,
    approve: boolean,
    scopes: Array<"view" | "control" | "edit"> | undefined,
  ): Promise<{ deviceId: string | null }> {
    return this.#o.admission.decide(requestId, approve, scopes);
  }

  /** What the status reports: sessions, participants, pending approvals, the map in effect. */
  status(): MidiStatus {
    const pid = this.#core.model.activeProjectId;
    const participants = this.#endpoints.flatMap((e) => e.participants?.() ?? []);
    return {
      endpoints: this.#endpoints.length,
      participants: participants.map((p) => ({ ...p })),
      overBudget: this.#endpoints.reduce((n, e) => n + (e.overBudget ?? 0), 0),
      pending: this.#o.admission.pending(),
      projectId: pid,
      map: mapOf(pid ? this.#core.model.project(pid) : undefined),
      learning: this.#learn.request,
      lastMessage: this.#last ? jsonMessage(this.#last) : null,
      counts: { ...this.counts, dropped: this.#calls.dropped },
      lastError: this.lastError,
      local: this.#endpoints.find((e) => e.localPorts)?.localPorts?.() ?? null,
    };
  }

  /** Stops the feedback. */
  close(): void {
    this.#unsubscribe();
    this.#learn.cancel();
  }

  #context(): MapContext {
    const model = this.#core.model;
    const pid = model.activeProjectId;
    const project = pid ? model.project(pid) : undefined;
    const songId = pid ? model.playstate(pid)?.activeSongID : null;
    const song = songId ? project?.songs.find((s) => s.id === songId) : undefined;
    return { project, songClips: song?.clips ?? [] };
  }

  #run(call: ReturnType<MidiMapper["calls"]>[number], from: MidiSource, grant: Grant): void {
    const input = { ...call };
    const caller = { address: from.address, isLocal: isLocalSource(from), grant };
    const fail = (error: unknown) => this.#fail(call.name, error);
    let prepared;
    try {
      // With the source's grant given, `prepare` is synchronous.
      prepared = this.#o.policy.prepare(ACTION, caller, input, { where: `MIDI ${call.name}` });
    } catch (error) {
      return fail(error);
    }
    if (prepared instanceof Promise) return fail(new Error("MIDI calls carry their grant"));
    const run = () => Promise.resolve().then(() => prepared.run()).catch(fail);
    this.#calls.run(valueKey(call.name, call.params), from.address, run);
  }

  #fail(action: string, error: unknown): void {
    this.counts.failed++;
    const code = error instanceof CueportError ? error.code : "SERVER_ERROR";
    const message = error instanceof Error ? error.message : String(error);
    this.lastError = { action, code, message };
    const fault = unexpectedOf(error);
    if (fault) this.#o.logFault?.(`MIDI ${action}: ${fault}`);
  }

  #onBatch(batch: UpdateBatch): void {
    if (this.#endpoints.length === 0) return;
    const relevant = batch.updates.some((u) =>
      u.updateType !== "playstate" || u.data.event !== "positions"
    );
    if (!relevant) return;
    const changes = this.#feedback.changes();
    for (const e of this.#endpoints) this.#feedback.deliver(e, changes);
  }
}

/** What `GET /api/v1/midi` answers: `protocol/midi.ts`'s `MidiStatusFields`, and the participants. */
export interface MidiStatus extends MidiStatusFields {
  participants: MidiParticipant[];
  overBudget: number;
  /** The output's local MIDI ports; null: setting midiLocal off. */
  local: LocalPorts | null;
}

/** A message as JSON shows it (sysex bytes as hex). */
export function jsonMessage(last: LastMessage): Record<string, unknown> {
  const m = last.message;
  const message = m.type === "sysex"
    ? { type: "sysex", data: [...m.data].map((b) => b.toString(16).padStart(2, "0")).join(" ") }
    : { ...m };
  return { ...message, from: { ...last.from }, at: last.at };
}

/** What the service opens the MIDI transport with (the settings `midi*`, auth). */
export interface OpenMidiOptions {
  devices: DeviceRegistry;
  authenticator: TokenCheck;
  /** Setting localhostAuthExempt. */
  isLocalhostExempt: boolean;
  /** Setting midiAllow. */
  allow: readonly string[];
  /** Setting midiFeedback. */
  feedback: readonly string[];
  timecode?: TimecodeSink | undefined;
  /** Where refusals and approvals are told (info). */
  log?: (message: string) => void;
  logFault?: (message: string) => void;
}

/**
 * The service's MIDI transport over the one policy, with no endpoint yet
 * (`attach` them; the admission is the network session's `admit`).
 * @throws {Error} for a bad midiAllow entry
 */
export function openMidi(core: Core, o: OpenMidiOptions): MidiServer {
  const policy = new Policy({
    core,
    authenticator: o.authenticator,
    isLocalhostExempt: o.isLocalhostExempt,
  });
  const admission = new MidiAdmission({ devices: o.devices, policy, allow: o.allow, log: o.log });
  const options: MidiServerOptions = { policy, admission, feedback: o.feedback };
  if (o.timecode) options.timecode = o.timecode;
  if (o.logFault) options.logFault = o.logFault;
  return new MidiServer(core, options);
}
