/**
 * A yes-only check compiled from the plainest input schemas (issue 42): an object whose fields
 * are all strings, with at most a shortest and a longest length, each required or optional (a
 * Project's id, no input at all). The reads clients poll take such inputs, and zod's walk of
 * them was a tenth of their route's work; this check answers "valid, and zod would give the same
 * fields back" for the common case, and anything it is not sure of (another field kind, a check
 * it does not know, an unknown key, a value of the wrong type) goes to zod, which decides and
 * words the refusal. The schema stays the one declaration: nothing here restates a rule.
 * @module
 */
import type { z } from "zod";

/** Says whether a raw input certainly passes its schema unchanged. */
type PlainCheck = (raw: unknown) => boolean;

/** One string field: its name, whether it may be left out, and its length bounds. */
interface StringField {
  name: string;
  isOptional: boolean;
  min: number;
  max: number;
}

/** The zod internals read here (zod 4's `_zod.def`), as far as this file reads them. */
interface Def {
  type: string;
  shape?: Record<string, { _zod: { def: Def } }>;
  catchall?: { _zod: { def: Def } };
  innerType?: { _zod: { def: Def } };
  checks?: Array<{ _zod: { def: { check: string; minimum?: number; maximum?: number } } }>;
  coerce?: boolean;
}

const NEVER: PlainCheck = () => false;
const compiled = new WeakMap<z.ZodType, PlainCheck>();

/**
 * The compiled check of `schema`: true only for an input the schema accepts as it is (a plain
 * object of the declared string fields within their lengths, no other key); false means "ask
 * zod", never "invalid". A schema of another kind compiles to a check that always says false.
 */
export function plainInputCheck(schema: z.ZodType): PlainCheck {
  let check = compiled.get(schema);
  if (check === undefined) {
    const fields = stringFields((schema as unknown as { _zod: { def: Def } })._zod.def);
    check = fields === null ? NEVER : checkOf(fields);
    compiled.set(schema, check);
  }
  return check;
}

/** The fields of an object schema of strings only, or null for any other schema. */
function stringFields(def: Def): StringField[] | null {
  if (def.type !== "object" || !def.shape) return null;
  // A strict object refuses other keys, a plain one strips them: either way an input without
  // them comes back with the same fields. Any other catchall keeps them, typed: not plain.
  if (def.catchall && def.catchall._zod.def.type !== "never") return null;
  const fields: StringField[] = [];
  for (const [name, field] of Object.entries(def.shape)) {
    let inner = field._zod.def;
    const isOptional = inner.type === "optional";
    if (isOptional) inner = inner.innerType!._zod.def;
    if (inner.type !== "string" || inner.coerce) return null;
    let min = 0, max = Infinity;
    for (const { _zod: { def: check } } of inner.checks ?? []) {
      if (check.check === "min_length") min = Math.max(min, check.minimum!);
      else if (check.check === "max_length") max = Math.min(max, check.maximum!);
      else return null;
    }
    fields.push({ name, isOptional, min, max });
  }
  return fields;
}

function checkOf(fields: readonly StringField[]): PlainCheck {
  return (raw) => {
    if (
      typeof raw !== "object" || raw === null || Object.getPrototypeOf(raw) !== Object.prototype
    ) {
      return false;
    }
    let seen = 0;
    for (const { name, isOptional, min, max } of fields) {
      if (!Object.hasOwn(raw, name)) {
        if (isOptional) continue;
        return false;
      }
      const value = (raw as Record<string, unknown>)[name];
      if (typeof value !== "string" || value.length < min || value.length > max) return false;
      seen++;
    }
    // No key beyond the declared ones (a strict schema's refusal, words and all, is zod's).
    for (const _ in raw) if (--seen < 0) return false;
    return seen === 0;
  };
}
