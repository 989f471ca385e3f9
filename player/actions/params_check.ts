/**
 * The player's door check of an action's params, compiled once from the catalog
 * (`protocol/actions.ts`): one plain function per action, from its declared params
 * and each param kind's rule, with the rules' numbers and patterns of
 * `protocol/action_rules.ts`. It only says yes fast: a value it refuses is parsed
 * by the catalog's zod schema (`normalizedParamsSchema`), which words the refusal
 * and has the last word, so a check stricter than zod costs a parse, never a wrong
 * answer. `tests/player/actions/params_check_test.ts` holds every kind's rule to
 * its zod schema on the same values. Measured: 0.42 us per zod parse of
 * SET_CONTROL's params against 0.05 us for this check (docs/load.md, "Where the
 * action's CPU goes").
 * @module
 */
import { type ActionParams, ACTIONS, type ParamKind } from "../../protocol/actions.ts";
import {
  CONTROL_NORMALIZED,
  DIRECTIONS,
  FRACTION,
  INDEX_MIN,
  PRESET_KINDS,
  RECORD_MODES,
  TARGET_PATTERN,
} from "../../protocol/action_rules.ts";
import { isRegionText } from "../../protocol/region.ts";

/** Whether one normalized param value is of its kind (the rule of `PARAM_SCHEMAS`). */
type KindCheck = (value: unknown) => boolean;

const nonEmpty: KindCheck = (v) => typeof v === "string" && v.length > 0;
const oneOf = (values: readonly string[]): KindCheck => (v) =>
  typeof v === "string" && values.includes(v);

/** Each kind's rule, as `PARAM_SCHEMAS` declares it in zod. */
export const KIND_CHECKS: Readonly<Record<ParamKind, KindCheck>> = {
  clipId: nonEmpty,
  songId: nonEmpty,
  text: nonEmpty,
  projectId: nonEmpty,
  index: (v) => Number.isSafeInteger(v) && (v as number) >= INDEX_MIN,
  fraction: (v) =>
    typeof v === "number" && Number.isFinite(v) && v >= FRACTION.min && v <= FRACTION.max,
  number: (v) => typeof v === "number" && Number.isFinite(v),
  boolean: (v) => typeof v === "boolean",
  control: (v) => typeof v === "string" && CONTROL_NORMALIZED.test(v),
  target: (v) => typeof v === "string" && TARGET_PATTERN.test(v),
  direction: oneOf(DIRECTIONS),
  recordMode: oneOf(RECORD_MODES),
  presetKind: oneOf(PRESET_KINDS),
  region: isRegionText,
};

/** Whether `value` is an object of JSON's own making (no array, no class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** One action's check: its declared params only, each of its kind, the required ones present. */
function compile(params: readonly { name: string; kind: ParamKind; isOptional: boolean }[]) {
  const declared = new Set(params.map((p) => p.name));
  const fields = params.map((p) => ({ ...p, check: KIND_CHECKS[p.kind] }));
  return (value: unknown): value is ActionParams => {
    if (!isPlainObject(value)) return false;
    for (const key in value) if (!declared.has(key)) return false;
    for (const { name, isOptional, check } of fields) {
      const v = value[name];
      if (v === undefined ? !isOptional : !check(v)) return false;
    }
    return true;
  };
}

const CHECKS: ReadonlyMap<string, (value: unknown) => value is ActionParams> = new Map(
  ACTIONS.map((spec) => [spec.name, compile(spec.params)]),
);

/**
 * Whether `params` are certainly valid normalized params of the action `name`
 * (false for an unknown action): when false, parse them with
 * `normalizedParamsSchema(name)` for the verdict and its words.
 */
export function hasValidParams(name: string, params: unknown): params is ActionParams {
  return CHECKS.get(name)?.(params) ?? false;
}
