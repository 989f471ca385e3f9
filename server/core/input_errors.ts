/**
 * The error for an input a schema refused, the same on every transport: it
 * names the field by its real path (`params.projectID`, `payload.updateTypes.1`)
 * and, for a field the schema does not have, lists the ones it has with the
 * nearest as a suggestion, as `POST /api/v1/action` always did.
 * @module
 */
import type { z } from "zod";
import { didYouMean } from "../../lib/suggest.ts";
import { CueportError } from "./errors.ts";

/** A schema's definition, as far as this module reads it. */
interface Def {
  type?: string;
  innerType?: unknown;
  in?: unknown;
  shape?: Record<string, unknown>;
  element?: unknown;
  valueType?: unknown;
}

function defOf(schema: unknown): Def | undefined {
  return (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;
}

/** The schema under optional, nullable, default and pipe wrappers. */
function unwrapped(schema: unknown): unknown {
  let s = schema;
  for (let def = defOf(s); def; def = defOf(s)) {
    if (def.innerType) s = def.innerType;
    else if (def.type === "pipe") s = def.in;
    else break;
  }
  return s;
}

/** The field names of the object `schema` expects at `path`; none where it expects no object. */
export function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let s = unwrapped(schema);
  for (const key of path) {
    const def = defOf(s);
    if (def?.type === "object") s = unwrapped(def.shape?.[String(key)]);
    else if (def?.type === "array") s = unwrapped(def.element);
    else if (def?.type === "record") s = unwrapped(def.valueType);
    else return [];
  }
  const def = defOf(s);
  return def?.type === "object" ? Object.keys(def.shape ?? {}) : [];
}

/**
 * `path` as the docs write it after `prefix`: `payload.updateTypes.1`,
 * `edits.1.params.clipID` (an action's params alone are written
 * `params[1] (percent)`, by the action rules, with the param's name).
 */
export function fieldPath(path: readonly PropertyKey[], prefix = ""): string {
  return [prefix.replace(/\.$/, ""), ...path.map(String)].filter((part) => part !== "").join(".");
}

/**
 * The error for the first issue of `error`. `prefix` is the transport's path
 * to the input (`params.` on the WebSocket), `whole` names the input itself
 * when the issue is about all of it (`body`), `what` says what it is (`an
 * action message`).
 */
export function inputError(
  schema: z.ZodType,
  error: z.ZodError,
  options: { prefix?: string; whole?: string; what?: string } = {},
): CueportError {
  const issue = error.issues[0]!;
  const prefix = options.prefix ?? "";
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    const field = fieldPath([...issue.path, key], prefix);
    const known = fieldsAt(schema, issue.path);
    const of = issue.path.length === 0 && options.what
      ? options.what
      : fieldPath(issue.path, prefix) || options.what || "the input";
    const use = known.length > 0 ? `: use ${known.join(", ")}` : "";
    return new CueportError(
      "INVALID_MESSAGE",
      `Invalid ${field}: not a field of ${of}${didYouMean(key, known)}${use}`,
      { field },
    );
  }
  const field = fieldPath(issue.path, prefix) || options.whole || "body";
  return new CueportError("INVALID_MESSAGE", `Invalid ${field}: ${issue.message}`, { field });
}
