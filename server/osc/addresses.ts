/**
 * The OSC address table, generated from the catalogs (never kept by hand):
 * a readable address per action (`/play`, `/clip/{clipID}/trigger`,
 * `/control/{controlID}`), `/action/<NAME>` per action, the generic
 * `/action <NAME> ...`, and `/get/<query>` per query operation. OSCQuery
 * and `docs/osc.md` are generated from the same table.
 * @module
 */
import { ACTIONS, type ActionSpec, type ParamSpec } from "../../protocol/actions.ts";
import { type AnyOperation, operationNamed, OPERATIONS, operationsOfKind } from "../core/mod.ts";

/** One part of an address: a fixed word, or a param taken from the address. */
export type Segment =
  | { literal: string }
  | {
    param: ParamSpec; /** Address parts it spans (a Target `clip:<id>/<name>` spans 2). */
    span: number;
  };

/** One OSC argument an address takes. */
export interface ArgSpec {
  name: string;
  /** The action param kind, or `string` / `strings` for query inputs. */
  kind: string;
  isOptional: boolean;
  description: string;
}

/** One row of the address table. */
export interface OscAddress {
  /** As documented: `/clip/{clipID}/trigger`. */
  path: string;
  segments: readonly Segment[];
  /**
   * `action`: a readable or `/action/<NAME>` address; `generic`: `/action <NAME>`; `query`:
   * `/get/...`; `operation`: `/<name>`, an operation that names OSC among its `transports`,
   * its arguments taken as a query's (`/timecode`).
   */
  kind: "action" | "generic" | "query" | "operation";
  operation: AnyOperation;
  /** The action, for action addresses. */
  action?: ActionSpec;
  /** The arguments after those in the address, in order. */
  args: readonly ArgSpec[];
  description: string;
}

/** Words of a name that name a thing: the address starts with them. */
const NOUNS = new Set([
  "clip",
  "clips",
  "song",
  "control",
  "param",
  "output",
  "record",
  "mute",
  "editor",
  "project",
]);
/** Words of a name that qualify the thing and come right after it (`/clip/index/{n}`). */
const QUALIFIERS = new Set(["all", "index"]);
/** Words that add nothing to an address: `set` (`/control/A`), `by` and `id` (the id is in it). */
const DROPPED = new Set(["in", "set", "by", "id"]);
/** The noun whose id a param kind is, when the id goes into the address. */
const ID_OF: Record<string, string> = { clipId: "clip", songId: "song", projectId: "project" };

function words(name: string): string[] {
  return name.toLowerCase().split("_").filter((w) => !DROPPED.has(w));
}

/**
 * The readable addresses of an action, by one rule: the noun first
 * (`clips` as `clip`), then the id the first param gives (a Clip id after
 * `clip`, a Song id after `song`, a Control letter after `control`, a Target
 * after `param`, a position after `index`), then the other words in order.
 * An optional id gives two addresses: with it and without (the selected one).
 */
export function readableSegments(spec: ActionSpec): Segment[][] {
  const all = words(spec.name);
  const nouns = all.filter((w) => NOUNS.has(w)).map((w) => (w === "clips" ? "clip" : w));
  const qualifiers = all.filter((w) => QUALIFIERS.has(w));
  const rest = all.filter((w) => !NOUNS.has(w) && !QUALIFIERS.has(w));
  const first = spec.params[0];
  const noun = nouns[0];
  const head: Segment[] = nouns.map((literal) => ({ literal }));
  let inPath: Segment | null = null;
  if (first && noun) {
    const isId = ID_OF[first.kind] === noun;
    const isLetter = first.kind === "control" && noun === "control";
    const isTarget = first.kind === "target" && noun === "param";
    const isIndex = first.kind === "index" && qualifiers.includes("index");
    if (isId || isLetter || isTarget || isIndex) {
      inPath = { param: first, span: first.kind === "target" ? 2 : 1 };
    }
  }
  const tail: Segment[] = rest.map((literal) => ({ literal }));
  const quals: Segment[] = qualifiers.map((literal) => ({ literal }));
  if (!inPath) return [[...head, ...quals, ...tail]];
  const withParam = [...head, ...quals, inPath, ...tail];
  if (!("param" in inPath) || !inPath.param.isOptional) return [withParam];
  return [withParam, [...head, ...quals, ...tail]];
}

/** `/clip/{clipID}/trigger`. */
export function pathOf(segments: readonly Segment[]): string {
  return "/" + segments.map((s) => ("literal" in s ? s.literal : `{${s.param.name}}`)).join("/");
}

function argsOf(spec: ActionSpec, segments: readonly Segment[]): ArgSpec[] {
  const taken = new Set(segments.flatMap((s) => ("param" in s ? [s.param.name] : [])));
  return spec.params.filter((p) => !taken.has(p.name)).map((p) => ({ ...p }));
}

/** The arguments of a query, from its input schema: required ones first, then optional ones. */
function queryArgs(operation: AnyOperation): ArgSpec[] {
  const shape = (operation.input as unknown as { shape?: Record<string, QueryField> }).shape ?? {};
  const args = Object.entries(shape).map(([name, field]) => ({
    name,
    kind: field.def?.type === "array" || field.unwrap?.().def?.type === "array"
      ? "strings"
      : "string",
    isOptional: field.safeParse(undefined).success,
    description: field.description ?? "",
  }));
  return [...args.filter((a) => !a.isOptional), ...args.filter((a) => a.isOptional)];
}

interface QueryField {
  def?: { type?: string };
  unwrap?: () => { def?: { type?: string } };
  description?: string;
  safeParse(value: unknown): { success: boolean };
}

function buildTable(): OscAddress[] {
  const action = operationNamed("action");
  const table: OscAddress[] = [];
  for (const spec of ACTIONS) {
    for (const segments of readableSegments(spec)) {
      table.push({
        path: pathOf(segments),
        segments,
        kind: "action",
        operation: action,
        action: spec,
        args: argsOf(spec, segments),
        description: spec.description,
      });
    }
  }
  for (const spec of ACTIONS) {
    const segments = [{ literal: "action" }, { literal: spec.name }];
    table.push({
      path: pathOf(segments),
      segments,
      kind: "action",
      operation: action,
      action: spec,
      args: spec.params.map((p) => ({ ...p })),
      description: spec.description,
    });
  }
  table.push({
    path: "/action",
    segments: [{ literal: "action" }],
    kind: "generic",
    operation: action,
    args: [
      { name: "name", kind: "text", isOptional: false, description: "Action name, as PLAY_IN" },
      {
        name: "params",
        kind: "any",
        isOptional: true,
        description: "The action's params in catalog order",
      },
    ],
    description: "Any action of the catalog by its name",
  });
  for (const operation of operationsOfKind("query").values()) {
    const segments = [{ literal: "get" }, { literal: operation.name }];
    table.push({
      path: pathOf(segments),
      segments,
      kind: "query",
      operation,
      args: queryArgs(operation),
      description: operation.summary,
    });
  }
  return [...table, ...operationAddresses()];
}

/** `/<name>` of each operation that names OSC among its transports, but the session ones (`/timecode`). */
function operationAddresses(): OscAddress[] {
  return OPERATIONS.filter((o) => o.kind !== "session" && o.transports?.includes("osc")).map((
    operation,
  ) => ({
    path: `/${operation.name}`,
    segments: [{ literal: operation.name }],
    kind: "operation",
    operation,
    args: queryArgs(operation),
    description: operation.summary,
  }));
}

/** The address table: readable action addresses, `/action/<NAME>`, `/action`, `/get/<query>`. */
export const ADDRESSES: readonly OscAddress[] = buildTable();
