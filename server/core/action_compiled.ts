/**
 * The action's rules compiled once per catalog action (issue 42): a plain yes-only check of the
 * common param shapes (a letter for a Control, a number for a fraction, an integer for a
 * position, a trimmed id) that `normalizeAction` (`action_rules.ts`) tries before its generic
 * walk. It answers the same normalized action the walk would, or undefined whenever it is not
 * sure, and the walk then decides and words any refusal: refusals never come from here.
 * `tests/server/core/action_compiled_test.ts` holds its answers to the walk's on every action of
 * the catalog. The rules are `protocol/action_rules.ts`'s; none is restated with another number.
 * @module
 */
import {
  type ActionParams,
  ACTIONS_BY_NAME,
  type NormalizedAction,
  type ParamKind,
} from "../../protocol/actions.ts";
import { BASE, FRACTION, INDEX_MIN, TARGET_PATTERN } from "../../protocol/action_rules.ts";

/** A param's value in its normalized form, or undefined to leave it to the generic walk. */
type FastParam = (raw: unknown, shift: number) => string | number | boolean | undefined;

/** One param of a compiled action. */
interface CompiledParam {
  name: string;
  isOptional: boolean;
  fast: FastParam;
}

/** One catalog action, its per-request lookups done once. */
interface CompiledAction {
  params: readonly CompiledParam[];
  isAppWide: boolean;
  isBaseShifted: boolean;
  takesVelocity: boolean;
}

const A = 65, Z = 90, LOWER_A = 97, LOWER_Z = 122;

/** A Control letter sent as one letter: upper-cased, as the walk's `control` parser does. */
function fastControl(raw: unknown): string | undefined {
  if (typeof raw !== "string" || raw.length !== 1) return undefined;
  const code = raw.charCodeAt(0);
  if (code >= A && code <= Z) return raw;
  return code >= LOWER_A && code <= LOWER_Z ? raw.toUpperCase() : undefined;
}

/** A number sent as a number (a finite number's text reads back as the same number; -0 as 0). */
function fastNumber(raw: unknown): number | undefined {
  if (typeof raw !== "number" || !Number.isFinite(raw)) return undefined;
  return raw === 0 ? 0 : raw;
}

function fastFraction(raw: unknown): number | undefined {
  const n = fastNumber(raw);
  return n !== undefined && n >= FRACTION.min && n <= FRACTION.max ? n : undefined;
}

/** A position sent as a safe integer (its text is digits), shifted by `base`, in range. */
function fastIndex(raw: unknown, shift: number): number | undefined {
  if (typeof raw !== "number" || !Number.isSafeInteger(raw)) return undefined;
  const index = (raw === 0 ? 0 : raw) - shift;
  return index >= INDEX_MIN ? index : undefined;
}

/** An id or a text sent already trimmed and not empty. */
function fastTrimmed(raw: unknown): string | undefined {
  return typeof raw === "string" && raw.length > 0 && raw.trim().length === raw.length
    ? raw
    : undefined;
}

function fastTarget(raw: unknown): string | undefined {
  return typeof raw === "string" && TARGET_PATTERN.test(raw) ? raw : undefined;
}

const never: FastParam = () => undefined;

/** The fast form of each kind; the kinds left to the walk (words, regions) take `never`. */
const FAST: Record<ParamKind, FastParam> = {
  clipId: fastTrimmed,
  projectId: fastTrimmed,
  songId: fastTrimmed,
  text: fastTrimmed,
  index: fastIndex,
  fraction: fastFraction,
  number: fastNumber,
  boolean: (raw) => typeof raw === "boolean" ? raw : undefined,
  control: fastControl,
  target: fastTarget,
  direction: never,
  recordMode: never,
  presetKind: never,
  region: never,
};

/** Every catalog action, compiled once. */
const COMPILED: ReadonlyMap<string, CompiledAction> = new Map(
  [...ACTIONS_BY_NAME].map(([name, spec]) => [name, {
    params: spec.params.map((p) => ({
      name: p.name,
      isOptional: p.isOptional,
      fast: FAST[p.kind],
    })),
    isAppWide: spec.isAppWide === true,
    isBaseShifted: spec.isBaseShifted === true,
    takesVelocity: spec.takesVelocity === true,
  }]),
);

/** A body `checkActionBody` has accepted (its fields' types are known). */
export interface CheckedBody {
  name: string;
  params?: unknown[] | undefined;
  projectID?: string | null | undefined;
  base?: number | undefined;
  velocity?: number | null | undefined;
}

const NO_RAW_PARAMS: readonly unknown[] = [];

/**
 * The normalized action of a checked body when every param is of a common shape, as the generic
 * walk (`normalizeAction`) would give it; undefined otherwise (an unknown name, a refusal, a
 * shape left to the walk), and the walk decides.
 */
export function compiledNormalize(body: CheckedBody): NormalizedAction | undefined {
  const compiled = COMPILED.get(body.name);
  if (compiled === undefined) return undefined;
  const { projectID, velocity } = body;
  if (compiled.isAppWide && typeof projectID === "string") return undefined;
  const raws = body.params ?? NO_RAW_PARAMS;
  const specs = compiled.params;
  if (raws.length > specs.length) return undefined;
  const shift = body.base === BASE.shifted && compiled.isBaseShifted ? 1 : 0;
  const params: ActionParams = {};
  for (let i = 0; i < specs.length; i++) {
    const p = specs[i]!;
    const raw = raws[i];
    if (raw === undefined || raw === null) {
      if (!p.isOptional) return undefined;
      continue;
    }
    const value = p.fast(raw, i === 0 ? shift : 0);
    if (value === undefined) return undefined;
    params[p.name] = value;
  }
  const normalized: NormalizedAction = { name: body.name, params, projectId: projectID ?? null };
  if (typeof velocity === "number" && compiled.takesVelocity) normalized.velocity = velocity;
  return normalized;
}
