/**
 * OSC arguments into an operation's input. Each argument becomes a plain
 * value (int and float a number, string a string, `T`/`F` a boolean, `N`
 * nothing); the action rules of the core then coerce it exactly as they
 * coerce HTTP's params (`"0.5"` and `0.5` are the same). Named options ride
 * as string arguments `key=value` (`base=1`, `velocity=90`, `project=demo`,
 * `reply=9000`), anywhere among the arguments.
 * @module
 */
import type { OscArgOutputOrArray } from "osc-min";
import { type ActionRequest, CueportError } from "../core/mod.ts";
import type { OscAddress } from "./addresses.ts";

/** An OSC argument as a plain value. */
export type OscValue = string | number | boolean | null;

/** What a message asks besides its input. */
export interface MessageOptions {
  /** Reply wanted: `true` to the sender's port, a number to that port; null: no reply asked. */
  reply: number | true | null;
}

/**
 * The shortest decimal that is the same float32: a desk's `0.3f` is
 * 0.30000001192092896 as a double, and is read as 0.3.
 */
export function shortestFloat(value: number): number {
  // Below 2 ** 24 every integer is a float32 of its own: it is its own shortest form.
  if (!Number.isFinite(value) || (Number.isInteger(value) && Math.abs(value) < 2 ** 24)) {
    return value;
  }
  for (let digits = 1; digits <= 9; digits++) {
    const shorter = Number(value.toPrecision(digits));
    if (Math.fround(shorter) === value) return shorter;
  }
  return value;
}

/**
 * One OSC argument as a plain value.
 * @throws {CueportError} INVALID_MESSAGE for types no operation takes (blob, MIDI, color, array)
 */
export function plainValue(arg: OscArgOutputOrArray, position: number): OscValue {
  switch (arg.type) {
    case "integer":
    case "double":
      return arg.value;
    case "float":
      return shortestFloat(arg.value);
    case "bigint":
      return Number(arg.value);
    case "string":
    case "symbol":
    case "character":
      return arg.value;
    case "true":
      return true;
    case "false":
      return false;
    case "null":
    case "bang":
      return null;
    default:
      throw new CueportError(
        "INVALID_MESSAGE",
        `Invalid args[${position}]: an OSC ${arg.type} is not accepted; send int, float, string, T or F`,
        { field: `args[${position}]` },
      );
  }
}

const OPTION = /^([A-Za-z]+)(?:=(.*))?$/s;

/**
 * Takes the `key=value` options (and a bare `reply`) out of the arguments.
 * Only `keys` are options; any other string stays an argument.
 */
export function splitOptions(
  values: readonly OscValue[],
  keys: ReadonlySet<string>,
): { values: OscValue[]; named: Map<string, string>; options: MessageOptions } {
  const rest: OscValue[] = [];
  const named = new Map<string, string>();
  const options: MessageOptions = { reply: null };
  for (const value of values) {
    const match = typeof value === "string" ? OPTION.exec(value) : null;
    const key = match?.[1];
    if (key === "reply") {
      options.reply = match![2] === undefined ? true : replyPort(match![2]);
    } else if (key !== undefined && match![2] !== undefined && keys.has(key)) {
      named.set(key, match![2]);
    } else rest.push(value);
  }
  return { values: rest, named, options };
}

function replyPort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new CueportError(
      "INVALID_MESSAGE",
      `Invalid reply: must be a port from 1 to 65535, got "${text}"`,
      { field: "reply" },
    );
  }
  return port;
}

/** The options an action address takes by name. */
export const ACTION_OPTIONS: ReadonlySet<string> = new Set([
  "base",
  "velocity",
  "project",
  "projectID",
]);

/** A number when the text is one (`base=1`), else the text, which the action rules refuse. */
function numeric(text: string): number | string {
  const n = Number(text);
  return text.trim() !== "" && Number.isFinite(n) ? n : text;
}

/**
 * The action request of a message: params from the address and the
 * arguments in catalog order, options from `key=value` arguments.
 */
export function actionInput(
  entry: OscAddress,
  fromPath: ReadonlyMap<string, string>,
  values: readonly OscValue[],
  named: ReadonlyMap<string, string>,
): ActionRequest {
  let name: unknown;
  let params: OscValue[];
  if (entry.kind === "generic") {
    [name, ...params] = values;
    if (typeof name !== "string") {
      throw new CueportError(
        "INVALID_MESSAGE",
        "Invalid args[0] (name): must be an action name such as PLAY_IN",
        { field: "args[0]" },
      );
    }
  } else {
    const spec = entry.action!;
    name = spec.name;
    // Made at its size (a desk's /control/* makes 26 a datagram): params, then the arguments
    // past the last param, which the rules refuse, naming the count.
    let fromValues = 0;
    for (const param of spec.params) if (!fromPath.has(param.name)) fromValues++;
    params = new Array(spec.params.length + Math.max(0, values.length - fromValues));
    let next = 0;
    let at = 0;
    for (const param of spec.params) {
      const value = fromPath.get(param.name);
      params[at++] = value !== undefined ? value : values[next++] ?? null;
    }
    while (next < values.length) params[at++] = values[next++]!;
    while (params.length > 0 && params[params.length - 1] === null) params.pop();
  }
  const request: ActionRequest = { name, params };
  const project = named.get("project") ?? named.get("projectID");
  if (project !== undefined) request.projectID = project;
  const base = named.get("base");
  if (base !== undefined) request.base = numeric(base);
  const velocity = named.get("velocity");
  if (velocity !== undefined) request.velocity = numeric(velocity);
  return request;
}

/** The input of a query: its arguments in the documented order, or by name (`projectId=demo`). */
export function queryInput(
  entry: OscAddress,
  values: readonly OscValue[],
  named: ReadonlyMap<string, string>,
): Record<string, unknown> {
  if (values.length > entry.args.length) {
    throw new CueportError(
      "INVALID_MESSAGE",
      `Invalid args: ${entry.path} takes at most ${entry.args.length} argument(s), got ${values.length}`,
      { field: "args" },
    );
  }
  const input: Record<string, unknown> = {};
  entry.args.forEach((arg, i) => {
    const raw = named.get(arg.name) ?? values[i];
    if (raw === undefined || raw === null) return;
    const text = String(raw);
    input[arg.name] = arg.kind === "strings"
      ? text.split(",").map((s) => s.trim()).filter(Boolean)
      : text;
  });
  return input;
}

/** The names a query takes as `key=value`. */
export function queryOptions(entry: OscAddress): ReadonlySet<string> {
  return new Set(entry.args.map((a) => a.name));
}
