/**
 * The edit operations: one edit or an atomic batch, the edit schemas
 * generated from the edit catalog, and an upload into a Project.
 * @module
 */
import { z } from "zod";
import {
  EditApplyResult,
  editJsonSchema,
  EDITS,
  EDITS_BY_NAME,
} from "../../../protocol/edits/mod.ts";
import { EditBody } from "../edits.ts";
import { CueportError } from "../errors.ts";
import { stableAnswer } from "../views.ts";
import type { UploadPart } from "../upload_images.ts";
import { type AnyOperation, defineOperation } from "./operation.ts";

/** The answer of an edit or an upload: the player's `edit.apply` result, and `ok`. */
export const EditResultView = z.strictObject({ ok: z.literal(true), ...EditApplyResult.shape });

const EditSchemaView = z.strictObject({
  name: z.string(),
  group: z.string(),
  summary: z.string(),
  localOnly: z.boolean(),
  params: z.record(z.string(), z.unknown()).describe("JSON Schema of the params object"),
});

/**
 * The schema views, each built on first use and then answered as the same
 * (stable) object: the catalog never changes, and zod's JSON Schema
 * conversion cost about 3 ms and a megabyte of garbage per full list.
 */
const schemaViews = new Map<string, z.infer<typeof EditSchemaView>>();
let allSchemaViews: { edits: z.infer<typeof EditSchemaView>[] } | undefined;

function schemaOf(name: string): z.infer<typeof EditSchemaView> {
  const cached = schemaViews.get(name);
  if (cached) return cached;
  const spec = EDITS_BY_NAME.get(name);
  if (!spec) {
    throw new CueportError(
      "NOT_FOUND",
      `No edit named "${name}": GET /api/v1/edit/schema lists them`,
    );
  }
  const view = stableAnswer({
    name: spec.name,
    group: spec.group,
    summary: spec.summary,
    localOnly: spec.isLocalOnly === true,
    params: editJsonSchema(spec),
  });
  schemaViews.set(spec.name, view);
  return view;
}

export type { UploadPart } from "../upload_images.ts";

/** What an upload hands the core: the file's bytes as they arrive, and where they go. */
export interface UploadInput {
  chunks: AsyncIterable<Uint8Array>;
  /** The files sent after it (a shader's IMPORTED images), read once `chunks` has ended. */
  others?: AsyncIterable<UploadPart>;
  name: string;
  projectID?: string | undefined;
  maxBytes: number;
  /** The size the client announced, when it did. */
  expectedBytes: number | null;
}

/** Every edit operation. */
export const EDIT_OPERATIONS: readonly AnyOperation[] = [
  defineOperation({
    name: "edit",
    summary: "Apply one edit, or an atomic batch (all or none, one undo step)",
    tag: "edits",
    kind: "edit",
    scope: "edit",
    isIdempotent: true,
    input: EditBody,
    // The edit rules check the body themselves, naming each param of each edit.
    parse: (raw) => raw,
    output: EditResultView,
    run: ({ core, isLocal, retry }, body: unknown) =>
      core.runEdit(body, { isLocal, ...(retry ? { retry } : {}) }),
  }),
  defineOperation({
    name: "editSchemas",
    since: "6.0",
    summary: "Every edit with its group, summary and parameters as JSON Schema",
    tag: "edits",
    kind: "edit",
    input: z.strictObject({}),
    output: z.strictObject({ edits: z.array(EditSchemaView) }),
    run: () => (allSchemaViews ??= stableAnswer({ edits: EDITS.map((e) => schemaOf(e.name)) })),
  }),
  defineOperation({
    name: "editSchema",
    since: "6.0",
    summary: "One edit's parameters as JSON Schema (descriptions, defaults, enums, ranges)",
    tag: "edits",
    kind: "edit",
    input: z.strictObject({ name: z.string() }),
    output: EditSchemaView,
    run: (_ctx, input) => schemaOf(input.name),
  }),
  defineOperation({
    name: "upload",
    since: "6.0",
    summary:
      "Upload a media file into a Project: multipart/form-data with a file field, or a raw body with ?name=",
    tag: "edits",
    kind: "edit",
    scope: "edit",
    input: z.strictObject({
      name: z.string().optional().describe("File name (required for a raw body)"),
      projectID: z.string().optional().describe("Target Project; omitted means the active one"),
    }),
    // The bytes arrive as a stream the transport decodes (multipart or raw): not JSON.
    parse: (raw) => raw as UploadInput,
    output: EditResultView,
    run: ({ core }, input: UploadInput) =>
      core.importUpload(input.chunks, {
        name: input.name || "upload",
        projectId: input.projectID ?? null,
        maxBytes: input.maxBytes,
        expectedBytes: input.expectedBytes,
        ...(input.others ? { others: input.others } : {}),
      }),
  }),
];
