/**
 * A stored shape as it goes out on the wire: `exact(schema)` is the same
 * declaration with every default removed (a field the sender must fill is
 * required) and every object strict (an unknown key fails). The model's
 * schemas parse documents from disk with defaults and tolerance; answers are
 * checked against their exact form, so one declaration serves both.
 * @module
 */
import { z } from "zod";

/** Copies the registered metadata (`.describe()`, `.meta()`) of `from` onto `to`. */
function withMeta(to: z.ZodType, from: z.ZodType): z.ZodType {
  const meta = z.globalRegistry.get(from);
  return meta ? to.meta(meta) : to;
}

function exactOf(schema: z.ZodType): z.ZodType {
  const s = schema as z.ZodType & Record<string, unknown>;
  let out: z.ZodType;
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(
      Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [k, exactOf(v)]),
    );
    out = z.strictObject(shape);
  } else if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault) {
    return withMeta(exactOf(schema.unwrap() as z.ZodType), schema);
  } else if (schema instanceof z.ZodOptional) {
    out = exactOf(schema.unwrap() as z.ZodType).optional();
  } else if (schema instanceof z.ZodNullable) {
    out = exactOf(schema.unwrap() as z.ZodType).nullable();
  } else if (schema instanceof z.ZodArray) {
    out = z.array(exactOf(schema.element as z.ZodType));
  } else if (schema instanceof z.ZodRecord) {
    out = z.record(s.keyType as z.ZodString, exactOf(schema.valueType as z.ZodType));
  } else if (schema instanceof z.ZodUnion) {
    const options = (schema.options as z.ZodType[]).map(exactOf);
    out = z.union(options as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  } else return schema;
  return withMeta(out, schema);
}

/**
 * `schema` with its defaults removed and its objects strict, recursively
 * (through optional, nullable, arrays, records and unions). Checks on leaf
 * values (ranges, patterns) stay. The output type is `schema`'s.
 */
export function exact<T extends z.ZodType>(schema: T): z.ZodType<z.output<T>> {
  return exactOf(schema) as z.ZodType<z.output<T>>;
}
