/**
 * The OSCQuery namespace (VidVox's proposal) of the OSC address space,
 * generated from the same address table: each address with its `TYPE`,
 * `ACCESS`, `RANGE`, `DESCRIPTION` and, for what feedback reports, its
 * current `VALUE`. Addresses with an id in them are listed for the Controls
 * A-Z and the Clips and Songs of the active Project; positions and Targets
 * stay reachable through `/action/<NAME>`.
 * @module
 */
import type { ParamKind } from "../../protocol/actions.ts";
import {
  CONTROL_IDS,
  DIRECTIONS,
  FRACTION,
  INDEX_MIN,
  NUMBER_CONVENTION,
  PRESET_KINDS,
  RECORD_MODES,
} from "../../protocol/action_rules.ts";
import type { ReadModel } from "../core/mod.ts";
import { ADDRESSES, type ArgSpec, type OscAddress } from "./addresses.ts";
import { currentFeedback, FEEDBACK_ADDRESSES, type FeedbackArg } from "./feedback.ts";

/** One node of the namespace. */
export interface QueryNode {
  FULL_PATH: string;
  CONTENTS?: Record<string, QueryNode>;
  TYPE?: string;
  ACCESS?: number;
  RANGE?: Array<{ MIN?: number; MAX?: number; VALS?: string[] } | null>;
  VALUE?: Array<number | string>;
  DESCRIPTION?: string;
}

const TYPE_OF: Record<string, string> = {
  index: "i",
  fraction: "f",
  number: "f",
  boolean: "T",
};

/** The values of the enumerated kinds, the protocol's (`protocol/action_rules.ts`). */
const VALS: Partial<Record<ParamKind, readonly string[]>> = {
  direction: DIRECTIONS,
  recordMode: RECORD_MODES,
  presetKind: PRESET_KINDS,
};

function typeOf(args: readonly ArgSpec[]): string {
  return args.filter((a) => !a.isOptional).map((a) => TYPE_OF[a.kind] ?? "s").join("");
}

/**
 * The `RANGE` of each argument, from the protocol's rules: a fraction's range, an index's least
 * value, an enumerated kind's values; a `number` (a Control's or a Target's value) its
 * conventional range, which a desk may draw as a fader (it is not clamped: `NUMBER_CONVENTION`).
 */
function rangeOf(args: readonly ArgSpec[]): QueryNode["RANGE"] {
  return args.filter((a) => !a.isOptional).map((a) => {
    if (a.kind === "fraction") return { MIN: FRACTION.min, MAX: FRACTION.max };
    if (a.kind === "number") return { MIN: NUMBER_CONVENTION.min, MAX: NUMBER_CONVENTION.max };
    if (a.kind === "index") return { MIN: INDEX_MIN };
    const vals = VALS[a.kind as ParamKind];
    return vals ? { VALS: [...vals] } : null;
  });
}

/** Every concrete path of a row, with the values its params take. */
function pathsOf(entry: OscAddress, model: ReadModel): string[] {
  let paths = [""];
  const active = model.activeProjectId;
  const project = active ? model.project(active) : undefined;
  for (const segment of entry.segments) {
    let values: readonly string[];
    if ("literal" in segment) values = [segment.literal];
    else if (segment.param.kind === "control") values = CONTROL_IDS;
    else if (segment.param.kind === "clipId") values = project?.clips.map((c) => c.id) ?? [];
    else if (segment.param.kind === "songId") values = project?.songs.map((s) => s.id) ?? [];
    else return [];
    paths = paths.flatMap((p) => values.map((v) => `${p}/${v}`));
  }
  return paths;
}

function typeTag(args: readonly FeedbackArg[]): string {
  return args.map((a) => (a.type === "float" ? "f" : a.type === "integer" ? "i" : "s")).join("");
}

/** Where a node of `path` sits in the tree, made on the way. */
function place(root: QueryNode, path: string): QueryNode {
  let node = root;
  let full = "";
  for (const part of path.slice(1).split("/")) {
    full += `/${part}`;
    node.CONTENTS ??= {};
    node = node.CONTENTS[part] ??= { FULL_PATH: full };
  }
  return node;
}

/** The whole namespace as it stands now. */
export function buildNamespace(model: ReadModel): QueryNode {
  const root: QueryNode = { FULL_PATH: "/", CONTENTS: {}, DESCRIPTION: "Cueport" };
  const values = new Map(
    currentFeedback(model, null).map((f) => [f.address, f.args] as const),
  );
  for (const entry of ADDRESSES) {
    for (const path of pathsOf(entry, model)) {
      const node = place(root, path);
      Object.assign(node, {
        TYPE: typeOf(entry.args),
        ACCESS: 2,
        RANGE: rangeOf(entry.args),
        DESCRIPTION: entry.description,
      });
    }
  }
  for (const [path, args] of values) {
    const node = place(root, path);
    node.VALUE = args.map((a) => a.value);
    node.ACCESS = (node.ACCESS ?? 0) | 1;
    node.TYPE ??= typeTag(args);
    node.DESCRIPTION ??= FEEDBACK_ADDRESSES.find((f) => f.address === path)?.about ??
      "Feedback";
  }
  return root;
}

/** The node at `path`, or null. */
export function nodeAt(root: QueryNode, path: string): QueryNode | null {
  if (path === "/" || path === "") return root;
  let node: QueryNode | undefined = root;
  for (const part of path.replace(/\/$/, "").slice(1).split("/")) {
    node = node?.CONTENTS?.[part];
    if (!node) return null;
  }
  return node;
}
