/**
 * The MIDI operations (docs/midi.md): the transport's status, learning a
 * binding, and the operator's decision on a MIDI source waiting for
 * approval. The MIDI transport (`server/midi/`) serves them as `ctx.midi`;
 * the core knows only this description of it.
 * @module
 */
import { z } from "zod";
import { MidiBinding, MidiMap } from "../../../protocol/midi.ts";
import type { EditResult } from "../edits.ts";
import type { MidiLearnInput, MidiService } from "./midi_service.ts";
import { type AnyOperation, defineOperation, given, SCOPES } from "./operation.ts";

/** What a client asks to learn. */
const LearnInput = z.strictObject({
  action: z.string().regex(/^[A-Z][A-Z0-9_]*$/, "must be an action name such as PLAY_IN")
    .describe("The action the next message runs (GET /api/v1/actions lists them)"),
  params: z.array(z.union([z.string(), z.number(), z.boolean()])).max(8).default([])
    .describe("Its params, in order (a control change appends its value)"),
  value: z.enum(["param", "trigger"]).optional()
    .describe("For a control change: append its value (param, default) or run at 64 (trigger)"),
  min: z.number().finite().optional().describe("Value of CC 0 (default 0)"),
  max: z.number().finite().optional().describe("Value of the top CC value (default 1)"),
  projectId: z.string().min(1).optional().describe("The Project whose map gets it; the active one"),
});

const Source = z.strictObject({
  kind: z.enum(["rtp", "local"]),
  address: z.string(),
  name: z.string(),
});

const Message = z.record(z.string(), z.unknown())
  .describe("A MIDI message: type, channel 1-16, its numbers; `from` and `at`");

/** `GET /api/v1/midi`. */
export const MidiStatusView = z.strictObject({
  endpoints: z.number().int().describe("MIDI carriers attached (network session, local ports)"),
  participants: z.array(Source).describe("Who is connected now"),
  pending: z.array(z.strictObject({
    requestId: z.string(),
    address: z.string(),
    name: z.string(),
    requestedAt: z.string(),
  })).describe(
    "Sources refused until the operator approves them (POST /api/v1/midi/approvals/:id)",
  ),
  projectId: z.string().nullable().describe("The active Project, whose map is in effect"),
  map: MidiMap.describe("The map in effect: the Project's (docs/midi.md)"),
  learning: z.record(z.string(), z.unknown()).nullable().describe("What a waiting learn binds"),
  lastMessage: Message.nullable(),
  counts: z.strictObject({
    received: z.number().int(),
    refused: z.number().int().describe("Messages of sources not admitted"),
    failed: z.number().int().describe("Calls the policy or the player refused"),
    dropped: z.number().int().describe("Values replaced before they ran, calls past the cap"),
  }),
  lastError: z.strictObject({ action: z.string(), code: z.string(), message: z.string() })
    .nullable(),
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

const LearnView = z.union([
  z.strictObject({
    learned: z.literal(true),
    binding: MidiBinding,
    message: Message,
    revision: z.number().int().optional().describe("The Project's revision after the edit"),
  }),
  z.strictObject({
    learned: z.literal(false),
    reason: z.enum(["cancelled", "replaced"]).describe(
      "cancelled: POST /api/v1/midi/learn/cancel or the request closed; replaced: another learn",
    ),
  }),
]);

const midiOf = (ctx: { midi?: MidiService | undefined }) => given(ctx.midi, "MIDI transport");

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
    input: LearnInput,
    output: LearnView,
    run: async (ctx, input: MidiLearnInput) => {
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
