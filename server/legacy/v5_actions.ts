/**
 * The 5.0.0 form of an action (spec section 9), translated into the 6.0
 * form the action rules take: the body `{action: {name, params}}`, the
 * class-style names (`PlayClipByIndexAction`) generated from the action
 * catalog by one rule, seeks by `position` in seconds, and the refusals of
 * what 5.0.0 did not have (the 6.0-only actions, `velocity`, `base`), each
 * naming the 6.0 way. The 5.0.0 port's transports translate a 5.0.0 body
 * here before the core sees it: the core and the 6.0 port know only the 6.0
 * form (docs/compat.md, "One body per port").
 * @module
 */
import {
  ACTIONS,
  ACTIONS_BY_NAME,
  type ActionSpec,
  type ParamKind,
} from "../../protocol/actions.ts";
import { didYouMean } from "../../lib/suggest.ts";
import { V5_ACTIONS, v5NameOf } from "../../protocol/v5_names.ts";
import { CueportError } from "../core/mod.ts";

export { V5_ACTIONS, v5NameOf };

/** The 6.0-only actions, by the 5.0.0-style name a client might try (`SetControlAction`). */
const V6_ONLY: ReadonlyMap<string, ActionSpec> = new Map(
  ACTIONS.filter((a) => a.since === "6.0").map((a) => [v5NameOf(a.name), a]),
);

/** One parameter as 5.0.0 takes it: a seek's fraction was `position` in seconds. */
export interface V5Param {
  name: string;
  kind: ParamKind | "seconds";
  isOptional: boolean;
}

/** The 5.0.0 parameters of an action, in order. */
export function v5ParamsOf(spec: ActionSpec): V5Param[] {
  return spec.params.map((p) =>
    spec.group === "seek" && p.kind === "fraction"
      ? { name: "position", kind: "seconds", isOptional: p.isOptional }
      : { name: p.name, kind: p.kind, isOptional: p.isOptional }
  );
}

/** How the core answers what a 5.0.0 seek needs: the length of a Clip's media or of a Song. */
export interface ActionContext {
  /**
   * Seconds of the Clip's media, or of the Song's audio (its timeline when it
   * has none); `undefined` when there is no such Clip or Song, `null` when
   * the Song has nothing to seek.
   */
  durationOf(
    kind: "clip" | "song",
    id: string,
    projectId: string | null,
  ): number | null | undefined;
}

function bad(field: string, message: string): CueportError {
  return new CueportError("INVALID_MESSAGE", `Invalid ${field}: ${message}`, { field });
}

/** Whether a body is in the 5.0.0 form: `{action: {...}}` without a 6.0 `name`. */
export function isV5Form(request: Record<string, unknown>): boolean {
  return "action" in request && !("name" in request);
}

/** The action of a 5.0.0 name, in any case, if any. */
function v5Named(name: string): ActionSpec | undefined {
  const lower = name.trim().toLowerCase();
  return V5_ACTIONS.get(name) ?? [...V5_ACTIONS].find(([n]) => n.toLowerCase() === lower)?.[1];
}

/** The action a 5.0.0 body names (by its 5.0.0 or catalog name, any case), if any. */
function namedAction(name: unknown): ActionSpec | undefined {
  if (typeof name !== "string") return undefined;
  return v5Named(name) ?? ACTIONS_BY_NAME.get(name.trim().toUpperCase());
}

/**
 * The 6.0 way of a field 5.0.0 did not have (`velocity`, `base`), for the refusal: the 6.0 form of
 * the very action when it takes the field, and that it takes none when it does not; null for
 * another field.
 */
function newFieldWay(key: string, action: ActionSpec | undefined): string | null {
  const [takes, example, why] = key === "velocity"
    ? [action?.takesVelocity, '"velocity": 90', "5.0.0 triggers are full velocity"]
    : key === "base"
    ? [action?.isBaseShifted, '"base": 1', "5.0.0 positions count from 0"]
    : [];
  if (example === undefined) return null;
  if (action !== undefined && !takes) {
    return `${key} is new in 6.0, and ${action.name} takes none: send the 5.0.0 body without it`;
  }
  const name = action?.name ?? (key === "velocity" ? "PLAY_CLIP_IN" : "SONG_SELECT_IN");
  return `${key} is new in 6.0: send the 6.0 form {"name": "${name}", "params": [...], ` +
    `${example}} to POST /api/v1/action (${why})`;
}

/** Refuses every key of `object` but `allowed`: the 6.0 fields with their 6.0 way. */
function onlyKeys(
  object: Record<string, unknown>,
  allowed: readonly string[],
  where: string,
  action: ActionSpec | undefined,
) {
  for (const key of Object.keys(object)) {
    if (allowed.includes(key)) continue;
    const field = where + key;
    throw bad(
      field,
      newFieldWay(key, action) ?? `is not a field of a 5.0.0 action: use ${allowed.join(", ")}`,
    );
  }
}

/** The catalog action a 5.0.0 name stands for, or the refusal naming the 6.0 way. */
function actionOf(name: unknown): ActionSpec {
  if (typeof name !== "string" || name.trim() === "") {
    throw bad("action.name", "must be a 5.0.0 action name such as PlayAction");
  }
  const found = v5Named(name);
  if (found) return found;
  const upper = ACTIONS_BY_NAME.get(name.trim().toUpperCase());
  const newer = upper?.since === "6.0"
    ? upper
    : [...V6_ONLY].find(([n]) => n.toLowerCase() === name.trim().toLowerCase())?.[1];
  if (newer) {
    throw bad(
      "action.name",
      `${newer.name} is new in 6.0 and has no 5.0.0 form: send the 6.0 form ` +
        `{"name": "${newer.name}", "params": [...]} to POST /api/v1/action`,
    );
  }
  // An uppercase catalog name in the 5.0.0 envelope is taken as the action it names.
  if (upper) return upper;
  throw bad("action.name", `unknown 5.0.0 action "${name}"${didYouMean(name, V5_ACTIONS.keys())}`);
}

/** A 5.0.0 seek's `position` in seconds as the 6.0 fraction of the media's length. */
function seekFraction(
  spec: ActionSpec,
  params: unknown[],
  index: number,
  projectId: string | null,
  context: ActionContext | undefined,
): number {
  const field = `action.params[${index}] (position)`;
  const raw = params[index];
  const text = typeof raw === "object" || raw === undefined ? "" : String(raw).trim();
  const seconds = text === "" ? NaN : Number(text);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw bad(field, `must be a number of seconds, 0 or more, got ${JSON.stringify(raw ?? null)}`);
  }
  const kind = spec.name === "SEEK_SONG_IN" ? "song" : "clip";
  const noun = kind === "song" ? "Song" : "Clip";
  const id = String(params[0] ?? "").trim();
  const duration = id ? context?.durationOf(kind, id, projectId) : undefined;
  if (duration === undefined) {
    throw new CueportError("NOT_FOUND", `${noun} "${id}" does not exist`, {
      field: "action.params[0]",
    });
  }
  if (duration === null) {
    throw new CueportError("ACTION_FAILED", `${noun} "${id}" has no audio to seek`);
  }
  if (seconds > duration) {
    throw bad(
      field,
      `must be from 0 to ${duration} seconds (the ${noun}'s length), got ${JSON.stringify(raw)}`,
    );
  }
  return duration === 0 ? 0 : seconds / duration;
}

/**
 * Checks the fields of a 5.0.0 body, `{action: {name, params}, projectID?}`,
 * without reading the action: what a transport checks as it decodes one.
 * @throws {CueportError} INVALID_MESSAGE naming the field (`velocity`, `base` with the 6.0 way)
 */
export function checkV5Envelope(request: Record<string, unknown>): void {
  const action = request.action;
  const named = namedAction((action as { name?: unknown } | null | undefined)?.name);
  onlyKeys(request, ["action", "projectID"], "", named);
  if (typeof action !== "object" || action === null || Array.isArray(action)) {
    throw bad("action", 'must be an object such as {"name": "PlayAction", "params": []}');
  }
  onlyKeys(action as Record<string, unknown>, ["name", "params"], "action.", named);
}

/**
 * A 5.0.0 body as the 6.0 request it means: the name from the catalog, a
 * seek's seconds as a fraction (with `context`), `projectID` kept.
 * @throws {CueportError} INVALID_MESSAGE naming the field (a 6.0-only action, `velocity`,
 * `base`: with the 6.0 way), NOT_FOUND (a seek's Clip or Song), ACTION_FAILED (a Song with nothing to seek)
 */
export function fromV5Form(
  request: Record<string, unknown>,
  context?: ActionContext,
): Record<string, unknown> {
  checkV5Envelope(request);
  const body = request.action as Record<string, unknown>;
  const spec = actionOf(body.name);
  const rawParams = body.params ?? [];
  if (!Array.isArray(rawParams)) throw bad("action.params", "must be an array");
  const params = [...rawParams];
  const projectID = request.projectID;
  const projectId = typeof projectID === "string" && projectID !== "" ? projectID : null;
  v5ParamsOf(spec).forEach((p, i) => {
    if (p.kind !== "seconds") return;
    if (params[i] !== undefined && params[i] !== null) {
      params[i] = seekFraction(spec, params, i, projectId, context);
    } else if (!p.isOptional) throw bad(`action.params[${i}] (position)`, "is required");
  });
  const translated: Record<string, unknown> = { name: spec.name, params };
  if (projectID !== undefined) translated.projectID = projectID;
  return translated;
}

/**
 * The refusal of a 5.0.0 name sent in the 6.0 form (`{"name": "PlayAction"}`),
 * naming both ways; null for any other name.
 */
export function v5NameInV6Form(name: string): CueportError | null {
  const spec = V5_ACTIONS.get(name);
  if (!spec) return null;
  return bad(
    "name",
    `"${name}" is the 5.0.0 name of ${spec.name}: send {"name": "${spec.name}"}, ` +
      `or the 5.0.0 form {"action": {"name": "${name}", "params": [...]}}`,
  );
}

/**
 * An action body as the 5.0.0 port takes it, as the 6.0 request the core
 * runs: a 5.0.0 body translated (`fromV5Form`), a 5.0.0 name in the 6.0 form
 * refused naming both ways, a 6.0 body as it is.
 * @throws {CueportError} as `fromV5Form`
 */
export function toV6Action(
  request: Record<string, unknown>,
  context: ActionContext,
): Record<string, unknown> {
  if (typeof request !== "object" || request === null || Array.isArray(request)) return request;
  if (isV5Form(request)) return fromV5Form(request, context);
  const name = request.name;
  const refusal = typeof name === "string" ? v5NameInV6Form(name) : null;
  if (refusal) throw refusal;
  return request;
}

/**
 * The 5.0.0 envelope of an edit, `{edit: {name, params}, projectID?}` (the
 * action's envelope; docs/compat.md), as the 6.0 body; a direction
 * `reverse` (the 5.0.0 word) as `backward`. Any other body as it is.
 * @throws {CueportError} INVALID_MESSAGE when `edit` is no object
 */
export function toV6Edit(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const { edit, ...rest } = body as Record<string, unknown>;
  if (edit === undefined || "name" in rest || "edits" in rest) return body;
  if (typeof edit !== "object" || edit === null || Array.isArray(edit)) {
    throw bad("edit", 'must be an object such as {"name": "song.add", "params": {...}}');
  }
  const { params, ...named } = edit as Record<string, unknown>;
  const translated = typeof params === "object" && params !== null && !Array.isArray(params) &&
      (params as Record<string, unknown>).direction === "reverse"
    ? { ...params, direction: "backward" }
    : params;
  return { ...rest, ...named, ...(params === undefined ? {} : { params: translated }) };
}
