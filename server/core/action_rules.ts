/**
 * The check of an action's rules (spec section 4.3), at the service's edge, for every
 * transport: params coerced to strings then parsed by kind, `base` 1 shifting the
 * positional actions, velocity kept for the velocity actions, fractions in range,
 * Control letters case-insensitive, the Target syntax. The rules' numbers and which
 * actions they apply to are declared in `protocol/` (`action_rules.ts`, `actions.ts`);
 * the player checks the params once more against the same declaration, as it writes
 * what it is sent to disk (`player/actions/mod.ts`), and what the show's state decides.
 * @module
 */
import { didYouMean } from "../../lib/suggest.ts";
import { V5_ACTIONS } from "../../protocol/v5_names.ts";
import {
  type ActionParams,
  ACTIONS_BY_NAME,
  BASE_SHIFTED_ACTIONS,
  type NormalizedAction,
  type ParamKind,
  type ParamSpec,
  VELOCITY_ACTIONS,
} from "../../protocol/actions.ts";
import {
  BASE,
  baseSchema,
  BOOLEAN_WORDS,
  DIRECTIONS,
  FRACTION,
  FRACTION_RANGE,
  INDEX_MIN,
  isVelocity,
  PRESET_KINDS,
  RECORD_MODES,
  TARGET_PATTERN,
  VELOCITY,
  VELOCITY_RANGE,
  velocitySchema,
} from "../../protocol/action_rules.ts";
import { z } from "zod";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";
import { CueportError } from "./errors.ts";
import { parseRegion, RegionError, regionText } from "../../protocol/region.ts";
import { compiledNormalize } from "./action_compiled.ts";

// Declared on the catalog's actions; kept here too for the core's importers.
export { BASE_SHIFTED_ACTIONS, VELOCITY_ACTIONS } from "../../protocol/actions.ts";

const VELOCITY_ERROR = `must be an integer from ${VELOCITY.min} to ${VELOCITY.max}`;

/** The body of an action (HTTP `POST /api/v1/action`; the same fields over every transport). */
export const ActionBody = z.strictObject({
  name: z.string({ error: "must be an action name such as PLAY_IN" })
    .min(1, { error: "must be an action name such as PLAY_IN" })
    .describe("Action name from the catalog, uppercase"),
  params: z.array(
    z.union([z.string(), z.number(), z.boolean(), z.null()], {
      error: "must be a string, number or boolean",
    }),
    { error: "must be an array" },
  ).optional().describe("Values in catalog order; each is coerced to a string, then parsed"),
  projectID: z.string({ error: "must be a non-empty string" })
    .min(1, { error: "must be a non-empty string" })
    .nullable().optional().describe("Target Project; omitted means the active one"),
  base: baseSchema(`must be ${BASE.values.join(" or ")}`).optional()
    .describe(
      `${BASE.shifted} counts positions from ${BASE.shifted} for the ` +
        `${count(BASE_SHIFTED_ACTIONS)} positional actions`,
    ),
  velocity: velocitySchema(VELOCITY_ERROR).nullable().optional().describe(
    `${VELOCITY_RANGE} for the ${
      count(VELOCITY_ACTIONS)
    } velocity actions; omitted is full velocity`,
  ),
});

/** An action as any transport hands it to the core (validated by `ActionBody`). */
export type ActionRequest = Record<string, unknown>;

const TRUE_WORDS: ReadonlySet<string> = new Set(BOOLEAN_WORDS.true);
const FALSE_WORDS: ReadonlySet<string> = new Set(BOOLEAN_WORDS.false);

/**
 * The error for a bad field. The value is echoed only when it is a plain
 * value: an array or object may be nested thousands deep (serializing it for
 * the answer overflowed the stack) or large, and says nothing a client lacks.
 */
function bad(field: string, message: string, value?: unknown): CueportError {
  const details: Record<string, unknown> = { field };
  if (value !== undefined && (value === null || typeof value !== "object")) {
    details.value = value;
  }
  return new CueportError("INVALID_MESSAGE", `Invalid ${field}: ${message}`, details);
}

function parseNumber(text: string): number | null {
  if (text.trim() === "") return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** Parses one string by kind; returns the value or a message saying what is wrong. */
const PARSERS: Record<
  ParamKind,
  (s: string) => string | number | boolean | { error: string; reason?: string }
> = {
  clipId: (s) => s.trim() || { error: "must not be empty" },
  projectId: (s) => s.trim() || { error: "must not be empty" },
  songId: (s) => s.trim() || { error: "must not be empty" },
  text: (s) => s.trim() || { error: "must not be empty" },
  index: (s) => (/^\s*-?\d+\s*$/.test(s) ? Number(s) : { error: `must be an integer, got "${s}"` }),
  fraction: (s) => {
    const n = parseNumber(s);
    return n !== null && n >= FRACTION.min && n <= FRACTION.max
      ? n
      : { error: `must be a number from ${FRACTION_RANGE}, got "${s}"` };
  },
  number: (s) => parseNumber(s) ?? { error: `must be a number, got "${s}"` },
  boolean: (s) => {
    const w = s.trim().toLowerCase();
    return TRUE_WORDS.has(w)
      ? true
      : FALSE_WORDS.has(w)
      ? false
      : { error: `must be true or false, got "${s}"` };
  },
  control: (
    s,
  ) => (/^\s*[A-Za-z]\s*$/.test(s)
    ? s.trim().toUpperCase()
    : { error: `must be a letter A to Z, got "${s}"` }),
  target: (s) =>
    TARGET_PATTERN.test(s.trim())
      ? s.trim()
      : { error: `must be of the form clip:<clipId>/<parameter>, got "${s}"` },
  direction: (s) => {
    const w = s.trim().toLowerCase();
    if (w === "reverse") return "backward"; // the 5.0.0 spelling
    return oneOf(DIRECTIONS, w, s);
  },
  recordMode: (s) => oneOf(RECORD_MODES, s.trim().toLowerCase(), s),
  presetKind: (s) => oneOf(PRESET_KINDS, s.trim().toLowerCase(), s),
  region: (s) => {
    try {
      return regionText(parseRegion(s));
    } catch (error) {
      if (!(error instanceof RegionError)) throw error;
      return { error: error.message, reason: error.code };
    }
  },
};

/** `word` if it is one of `values`, else the message naming them (`got` the value sent). */
function oneOf(values: readonly string[], word: string, got: string): string | { error: string } {
  return values.includes(word) ? word : { error: `must be ${values.join(" or ")}, got "${got}"` };
}

/** How many actions a rule applies to, in words, as the docs say it ("three"). */
function count(actions: ReadonlySet<string>): string {
  return ["no", "one", "two", "three", "four", "five", "six"][actions.size] ?? String(actions.size);
}

/** The name of param `position` in a refusal: `params[1] (value)`. */
function paramField(spec: ParamSpec, position: number): string {
  return `params[${position}] (${spec.name})`;
}

/**
 * A number sent as a number for a `fraction` or `number` param, as its text would parse (a
 * finite number's text reads back as the same number), without the text (issue 42: the
 * hottest param, `SET_CONTROL`'s value); undefined for anything else, which takes the text path.
 */
function plainNumber(kind: ParamKind, raw: unknown): number | undefined {
  if (typeof raw !== "number" || !Number.isFinite(raw)) return undefined;
  const n = raw === 0 ? 0 : raw; // -0's text is "0"
  if (kind === "number") return n;
  return kind === "fraction" && n >= FRACTION.min && n <= FRACTION.max ? n : undefined;
}

function parseParam(spec: ParamSpec, position: number, raw: unknown, shift: number) {
  const number = plainNumber(spec.kind, raw);
  if (number !== undefined) return number;
  if (typeof raw === "object" && raw !== null) {
    throw bad(paramField(spec, position), "must be a string, number or boolean", raw);
  }
  const text = String(raw);
  const parsed = PARSERS[spec.kind](text);
  if (typeof parsed === "object") {
    const error = bad(paramField(spec, position), parsed.error, raw);
    if (parsed.reason) error.details!.reason = parsed.reason; // a stable code (a region's)
    throw error;
  }
  if (spec.kind !== "index") return parsed;
  const index = (parsed as number) - shift;
  if (index < INDEX_MIN) {
    const least = INDEX_MIN + shift;
    throw bad(
      paramField(spec, position),
      `must be ${least} or more${shift ? ` when base is ${BASE.shifted}` : ""}`,
      raw,
    );
  }
  return index;
}

/**
 * The 5.0.0 HTTP port in use, for a refusal to point a 5.0.0 body to: its port, null when it is
 * off or was skipped, undefined when not known (the setting and its default are named).
 */
export type V5Port = number | null | undefined;

/** Where the 5.0.0 form is taken, in a refusal's words. */
export function v5PortText(port: V5Port): string {
  if (port === null) return "the 5.0.0 port (off here: the setting legacyHttpPort opens it)";
  if (port === undefined) {
    return `the 5.0.0 port (legacyHttpPort, ${SETTING_DEFAULTS.legacyHttpPort})`;
  }
  return `the 5.0.0 port, ${port}`;
}

/**
 * Validates and normalizes an action request for the player: the 6.0 form
 * `{name, params, projectID, base, velocity}` only (the 5.0.0 port
 * translates its own body first, `server/legacy/v5_actions.ts`); `v5Port` is where a refusal
 * points a 5.0.0 body or name.
 * @throws {CueportError} INVALID_MESSAGE naming the field
 */
export function normalizeAction(request: ActionRequest, v5Port?: V5Port): NormalizedAction {
  if (typeof request !== "object" || request === null || Array.isArray(request)) {
    throw bad("body", 'must be a JSON object such as {"name": "PLAY_IN"}');
  }
  if ("action" in request && !("name" in request)) throw foreignBody(request.action, v5Port);
  const body = checkActionBody(request);
  return compiledNormalize(body) ?? normalizeWalk(body, v5Port);
}

/**
 * The generic walk of the rules over a checked body: every shape, and the wording of every
 * refusal (`compiledNormalize` answers the common shapes first, the same way).
 * @throws {CueportError} INVALID_MESSAGE naming the field
 */
export function normalizeWalk(body: z.infer<typeof ActionBody>, v5Port?: V5Port): NormalizedAction {
  const { name, params: rawParams = [], projectID, base = BASE.default, velocity } = body;
  const spec = ACTIONS_BY_NAME.get(name);
  if (!spec) {
    const v5 = V5_ACTIONS.get(name);
    if (v5) {
      throw bad(
        "name",
        `"${name}" is the 5.0.0 name of ${v5.name}: send {"name": "${v5.name}"} here, or the ` +
          `5.0.0 form to ${v5PortText(v5Port)}`,
        name,
      );
    }
    throw bad("name", `unknown action "${name}"${didYouMean(name, ACTIONS_BY_NAME.keys())}`, name);
  }
  if (spec.isAppWide && typeof projectID === "string") throw appWideTarget(name, projectID);
  if (rawParams.length > spec.params.length) {
    throw bad(
      "params",
      `${name} takes at most ${spec.params.length} param(s), got ${rawParams.length}`,
    );
  }
  const params: ActionParams = {};
  for (let i = 0; i < spec.params.length; i++) {
    const p = spec.params[i]!;
    const raw = rawParams[i];
    if (raw === undefined || raw === null) {
      if (!p.isOptional) throw bad(paramField(p, i), "is required");
      continue;
    }
    const shift = i === 0 && base === BASE.shifted && BASE_SHIFTED_ACTIONS.has(name) ? 1 : 0;
    params[p.name] = parseParam(p, i, raw, shift);
  }
  const normalized: NormalizedAction = { name, params, projectId: projectID ?? null };
  if (typeof velocity === "number" && VELOCITY_ACTIONS.has(name)) normalized.velocity = velocity;
  return normalized;
}

const BODY_FIELDS: ReadonlySet<string> = new Set(Object.keys(ActionBody.shape));
const isParam = (v: unknown) =>
  typeof v === "string" || typeof v === "boolean" || v === null ||
  (typeof v === "number" && Number.isFinite(v));

/**
 * The body as `ActionBody` accepts it, checked once where it enters: the common valid body
 * by a plain check of the same rules (no zod parse on the hottest path: 0.6 us a request,
 * measured), anything else by `ActionBody`, which words the refusal and has the last word
 * (`tests/server/core/action_body_check_test.ts` holds the two to the same verdicts).
 * @throws {CueportError} INVALID_MESSAGE naming the field
 */
export function checkActionBody(request: Record<string, unknown>): z.infer<typeof ActionBody> {
  const { name, params, projectID, base, velocity } = request;
  let isValid = typeof name === "string" && name.length > 0 &&
    (params === undefined || (Array.isArray(params) && params.every(isParam))) &&
    (projectID === undefined || projectID === null ||
      (typeof projectID === "string" && projectID.length > 0)) &&
    (base === undefined || (BASE.values as readonly unknown[]).includes(base)) &&
    (velocity === undefined || velocity === null || isVelocity(velocity));
  for (const key in request) if (!BODY_FIELDS.has(key)) isValid = false;
  if (isValid) return request as z.infer<typeof ActionBody>;
  const checked = ActionBody.safeParse(request);
  if (!checked.success) throw envelopeError(checked.error.issues[0]!, request);
  return checked.data;
}

function envelopeError(issue: z.core.$ZodIssue, request: Record<string, unknown>): CueportError {
  const [key, index] = issue.path;
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "body";
    return bad(key, "is not a field of an action: use name, params, projectID, base, velocity");
  }
  if (key === "params" && typeof index === "number") {
    const spec = typeof request.name === "string" ? ACTIONS_BY_NAME.get(request.name) : undefined;
    const label = spec?.params[index] ? ` (${spec.params[index].name})` : "";
    return bad(`params[${index}]${label}`, issue.message, (request.params as unknown[])[index]);
  }
  const field = String(key ?? "body");
  return bad(field, issue.message, request[field]);
}

/**
 * The refusal of a target Project on an action about the application: the top-level
 * `projectID` says where an action runs, and `{"name": "PROJECT_SELECT", "projectID": "b"}`
 * would otherwise read as selecting "b".
 */
function appWideTarget(name: string, projectID: string): CueportError {
  return bad(
    "projectID",
    `${name} runs on no one Project, so it takes no target projectID: give the Project in ` +
      `params, as {"name": "${name}", "params": [${JSON.stringify(projectID.slice(0, 80))}]}`,
    projectID,
  );
}

/**
 * The refusal of a 5.0.0 body (`{action: {name, params}}`) on the 6.0 port,
 * saying how to write it (docs/compat.md, "One body per port").
 */
function foreignBody(action: unknown, v5Port: V5Port): CueportError {
  const inner = (action as { name?: unknown } | null)?.name;
  const known = typeof inner === "string"
    ? V5_ACTIONS.get(inner) ?? ACTIONS_BY_NAME.get(inner.toUpperCase())
    : undefined;
  const named = known ? `"${known.name}"` : '"<ACTION_NAME>"';
  return bad(
    "action",
    `is the 5.0.0 body: send {"name": ${named}, "params": [...]} here (the names of the ` +
      `Action schema, GET /api/v1/openapi.json), or the 5.0.0 body to ${v5PortText(v5Port)}`,
  );
}
