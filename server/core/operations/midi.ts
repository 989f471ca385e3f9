/**
 * The MIDI operations (docs/midi.md): the transport's status, learning a
 * binding, and the operator's decision on a MIDI source waiting for
 * approval. The MIDI transport (`server/midi/`) serves them as `ctx.midi`;
 * the core knows only this description of it.
 * @module
 */
import { z } from "zod";
import {
  MidiBinding,
  MidiLearnAnswer,
  MidiLearnRequest,
  MidiParticipant,
  MidiStatusFields,
} from "../../../protocol/midi.ts";
import type { EditResult } from "../edits.ts";
import { ACTIONS_BY_NAME } from "../../../protocol/actions.ts";
import { CueportError } from "../errors.ts";
import { normalizeAction } from "../action_rules.ts";
import type { MidiLearnInput, MidiService } from "./midi_service.ts";
import { type AnyOperation, defineOperation, given, SCOPES } from "./operation.ts";

/** `GET /api/v1/midi`: `protocol/midi.ts`'s fields, the participants and the network's refusals. */
export const MidiStatusView = MidiStatusFields.extend({
  participants: z.array(MidiParticipant).describe("Who is connected now, with their counters"),
  overBudget: z.number().int().describe(
    "Datagrams the network session dropped as over their sender's rate budget (since it started)",
  ),
  local: z.strictObject({
    inputs: z.array(z.string()).describe("Input ports read (Web MIDI names)"),
    outputs: z.array(z.string()).describe("Output ports that get feedback"),
    error: z.string().nullable().describe(
      "Why there are none: no output running (no output, no local ports), no Web MIDI",
    ),
  }).nullable().describe(
    "The show machine's MIDI ports through the output's browser (docs/midi.md, Local ports); null: midiLocal off",
  ),
});

const midiOf = (ctx: { midi?: MidiService | undefined }) => given(ctx.midi, "MIDI transport");

/**
 * Before the wait, what the learned binding could not run: an action the catalog lacks, or params
 * the action refuses both as they are (a note, a trigger) and with a control change's value
 * appended (`value: "param"`, the default for one).
 * @throws {CueportError} INVALID_MESSAGE naming the field
 */
function checkLearn(input: MidiLearnInput): void {
  if (!ACTIONS_BY_NAME.has(input.action)) {
    throw new CueportError(
      "INVALID_MESSAGE",
      `Invalid action: "${input.action}" is not an action of the catalog (GET /api/v1/actions lists them)`,
      { field: "action" },
    );
  }
  const refusal = (params: unknown[]) => {
    try {
      normalizeAction({ name: input.action, params });
      return null;
    } catch (error) {
      return error;
    }
  };
  const alone = refusal(input.params);
  if (alone === null) return;
  if (input.value !== "trigger" && refusal([...input.params, input.min ?? 0]) === null) return;
  throw alone;
}

/** The MIDI operations: HTTP and MCP. */
export const MIDI_OPERATIONS: readonly AnyOperation[] = [
  defineOperation({
    name: "midiStatus",
    since: "6.0",
    summary:
      "The MIDI transport: participants, sources waiting for approval, the map in effect, the last message",
    tag: "midi",
    kind: "service",
    transports: ["http", "mcp"],
    input: z.strictObject({}),
    output: MidiStatusView,
    run: (ctx) => midiOf(ctx).status(),
  }),
  defineOperation({
    name: "midiLearn",
    since: "6.0",
    summary:
      "Bind the next MIDI message to an action: waits until one comes (or the learn is cancelled), writes the binding into the Project's map (project.set_midi, undoable) and answers it",
    tag: "midi",
    kind: "service",
    transports: ["http", "mcp"],
    scope: "edit",
    input: MidiLearnRequest,
    output: MidiLearnAnswer,
    run: async (ctx, input: MidiLearnInput) => {
      // Before the wait: it would wait for a message, then bind what cannot run.
      checkLearn(input);
      const outcome = await midiOf(ctx).learn(input, ctx.signal);
      if (!outcome.learned) return outcome;
      const { binding } = outcome;
      const pid = input.projectId ?? ctx.core.model.activeProjectId;
      const project = pid ? ctx.core.model.project(pid) : undefined;
      const same = (b: z.infer<typeof MidiBinding>) =>
        b.kind === binding.kind && b.channel === binding.channel && b.number === binding.number;
      const bindings = [...(project?.midi.bindings ?? []).filter((b) => !same(b)), binding];
      const body = { name: "project.set_midi", params: { bindings }, projectID: pid };
      const result: EditResult = await ctx.core.runEdit(body, { isLocal: ctx.isLocal });
      return { ...outcome, revision: result.revision };
    },
  }),
  defineOperation({
    name: "midiLearnCancel",
    since: "6.0",
    summary: "End the waiting MIDI learn (it answers learned: false)",
    tag: "midi",
    kind: "service",
    scope: "edit",
    input: z.strictObject({}),
    output: z.strictObject({ cancelled: z.boolean().describe("false: no learn was waiting") }),
    run: (ctx) => ({ cancelled: midiOf(ctx).cancelLearn() }),
  }),
  defineOperation({
    name: "midiDecide",
    since: "6.0",
    summary:
      "Approve or refuse a MIDI source waiting for approval (local clients only): an approved one becomes a device bound to its address",
    tag: "midi",
    kind: "security",
    scope: "edit",
    isLocalOnly: true,
    input: z.strictObject({
      requestId: z.string().min(1),
      approve: z.boolean().default(true).describe("false refuses it"),
      scopes: z.array(z.enum(SCOPES)).min(1).optional()
        .describe("What the source may do; default view and control"),
    }),
    output: z.strictObject({
      deviceId: z.string().nullable().describe("The device it became; null when refused"),
    }),
    run: (ctx, input) => midiOf(ctx).decide(input.requestId, input.approve, input.scopes),
  }),
];
