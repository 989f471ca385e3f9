/**
 * Edits from any transport: the body shape (one edit, or an atomic batch),
 * validation against the catalog with field-level messages, and the
 * mapping of the player's refusals to stable codes.
 * @module
 */
import { z } from "zod";
import {
  type EditApplyResult,
  type EditRequest,
  EDITS_BY_NAME,
  MAX_BATCH_EDITS,
} from "../../protocol/edits/mod.ts";
import { type V5Port, v5PortText } from "./action_rules.ts";
import { CueportError } from "./errors.ts";
import { inputError } from "./input_errors.ts";

const Params = z.record(z.string(), z.unknown(), {
  error: "must be an object of named parameters",
});

/** The body of `POST /api/v1/edit` (the same fields over every transport). */
export const EditBody = z.strictObject({
  name: z.string({ error: "must be an edit name such as clip.add" }).min(1)
    .optional().describe("Edit name (GET /api/v1/edit/schema lists them)"),
  params: Params.optional().describe("Named parameters of the edit; positions are zero-based"),
  edits: z.array(z.strictObject({ name: z.string().min(1), params: Params.optional() }), {
    error: "must be an array of {name, params}",
  }).min(1).max(MAX_BATCH_EDITS).optional()
    .describe("A batch instead of name/params: applied all or none, undone as one step"),
  projectID: z.string().min(1).nullable().optional()
    .describe("Target Project; omitted means the active one"),
});

/** What `Core.runEdit` answers. */
export type EditResult = EditApplyResult & { ok: true };

function bad(field: string, message: string): CueportError {
  return new CueportError("INVALID_MESSAGE", `Invalid ${field}: ${message}`, { field });
}

/**
 * The refusal of a 5.0.0 edit body (`{edit: {...}}`) on the 6.0 port, saying
 * how to write it (docs/compat.md, "One body per port"); null for any other body.
 */
function foreignEdit(body: unknown, v5Port: V5Port): CueportError | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const { edit, name, edits } = body as Record<string, unknown>;
  if (edit === undefined || name !== undefined || edits !== undefined) return null;
  const inner = (edit as { name?: unknown } | null)?.name;
  const named = typeof inner === "string" ? JSON.stringify(inner) : '"<edit name>"';
  return bad(
    "edit",
    `is the 5.0.0 body: send {"name": ${named}, "params": {...}} here, ` +
      `or the 5.0.0 body to ${v5PortText(v5Port)}`,
  );
}

/**
 * Validates an edit body against the catalog; returns the edits to send.
 * Only the 6.0 body: the 5.0.0 port translates its own (`server/legacy/`).
 * @throws {CueportError} INVALID_MESSAGE naming the field, LOCAL_ONLY
 */
export function normalizeEdits(
  body: unknown,
  options: { isLocal: boolean; v5Port?: V5Port },
): { projectId: string | null; edits: EditRequest[] } {
  const foreign = foreignEdit(body, options.v5Port);
  if (foreign) throw foreign;
  const parsed = EditBody.safeParse(body ?? {});
  if (!parsed.success) throw inputError(EditBody, parsed.error, { what: "an edit body" });
  const { name, params, edits, projectID } = parsed.data;
  if ((name === undefined) === (edits === undefined)) {
    throw bad("body", "give either name (with params) or edits, not both");
  }
  const list: EditRequest[] = edits
    ? edits.map((e) => ({ name: e.name, params: e.params ?? {} }))
    : [{ name: name!, params: params ?? {} }];
  for (const [i, e] of list.entries()) {
    const where = edits ? `edits.${i}.` : "";
    const spec = EDITS_BY_NAME.get(e.name);
    if (!spec) {
      throw bad(`${where}name`, `unknown edit "${e.name}"; GET /api/v1/edit/schema lists them`);
    }
    const result = spec.params.safeParse(e.params);
    if (!result.success) {
      throw inputError(spec.params, result.error, { prefix: `${where}params.`, what: e.name });
    }
    if (spec.isLocalOnly && !options.isLocal) {
      throw new CueportError(
        "LOCAL_ONLY",
        `${e.name} names a path on the show machine: only local clients may send it; upload the file with POST /api/v1/files/upload`,
      );
    }
  }
  return { projectId: projectID ?? null, edits: list };
}
