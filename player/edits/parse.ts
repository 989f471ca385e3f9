/**
 * Validation of an `edit.apply` batch against the edit catalog, naming the
 * first bad field (the player is the authority; the service checks too, for
 * early answers).
 * @module
 */
import { type EditApplyParams, type EditRequest, EDITS_BY_NAME } from "../../protocol/edits/mod.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { quoted, Refusal } from "../errors.ts";

/** A validated edit of a batch. */
export interface ParsedEdit {
  spec: { name: string };
  params: Record<string, unknown>;
}

/**
 * Validates a batch against the catalog, naming the first bad field.
 * @throws {Refusal} INVALID_PARAMS, or ACTION_REFUSED for undo/redo in a batch
 */
export function parseEdits(params: EditApplyParams): ParsedEdit[] {
  const edits: unknown = params.edits ?? [];
  if (!Array.isArray(edits)) {
    throw new Refusal("Invalid edits: must be an array", RpcErrorCode.INVALID_PARAMS);
  }
  if (edits.length === 0) throw new Refusal("No edits given", RpcErrorCode.INVALID_PARAMS);
  return edits.map((e: EditRequest | null, i) => {
    const where = edits.length > 1 ? `edits.${i}.` : "";
    const spec = e ? EDITS_BY_NAME.get(e.name) : undefined;
    if (!e || !spec) {
      throw new Refusal(
        `Invalid ${where}name: unknown edit ${quoted(e?.name)}; GET /api/v1/edit/schema lists them`,
        RpcErrorCode.INVALID_PARAMS,
      );
    }
    const result = spec.params.safeParse(e.params ?? {});
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const path = ["params", ...issue.path].join(".");
      throw new Refusal(`Invalid ${where}${path}: ${issue.message}`, RpcErrorCode.INVALID_PARAMS);
    }
    if (spec.isHistoryControl && spec.group === "project" && edits.length > 1) {
      throw new Refusal(`${spec.name} cannot be part of a batch: send it alone`);
    }
    return { spec, params: result.data as Record<string, unknown> };
  });
}
