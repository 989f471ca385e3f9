/**
 * Which row of the address table an incoming address names, and the params
 * it carries in its parts. OSC 1.0 patterns (`*`, `?`, `[a-c]`, `[!a]`,
 * `{A,B}`) are accepted where a param sits in the address and its values
 * are known: Control letters (`/control/{A,B,C}`) and the Clip and Song ids
 * of the target Project (`/clip/*\/stop`). Fixed words must be written out:
 * `/*` does not run every one-word action.
 * @module
 */
import { CONTROL_IDS } from "../../protocol/action_rules.ts";
import { CueportError } from "../core/mod.ts";
import { ADDRESSES, type OscAddress } from "./addresses.ts";

/** One call an address makes: a row and the params its parts gave. */
export interface Match {
  entry: OscAddress;
  fromPath: Map<string, string>;
}

/** The values a param in the address may take, when a pattern stands there. */
export interface PatternValues {
  clipIds(): readonly string[];
  songIds(): readonly string[];
}

const PATTERN_CHARS = /[*?[\]{}]/;
/** Most calls one pattern may make. */
export const MAX_MATCHES = 64;

const BY_HEAD = new Map<string, OscAddress[]>();
for (const entry of ADDRESSES) {
  const head = (entry.segments[0] as { literal: string }).literal;
  BY_HEAD.set(head, [...(BY_HEAD.get(head) ?? []), entry]);
}
/** Rows with more fixed words first: `/clip/all/stop` before `/clip/{clipID}/stop`. */
for (const rows of BY_HEAD.values()) {
  rows.sort((a, b) => literalCount(b) - literalCount(a));
}

function literalCount(entry: OscAddress): number {
  return entry.segments.filter((s) => "literal" in s).length;
}

const globs = new Map<string, RegExp>();

/**
 * The calls of addresses that depend on nothing else: those without a
 * pattern, and patterns over Control letters only (`/control/*`), whose
 * values never change. A desk sends the same few addresses thousands of
 * times. Callers only read them.
 */
const fixedMatches = new Map<string, Match[]>();
const MAX_FIXED_MATCHES = 1024;

/**
 * One address part's pattern as a regular expression.
 * @throws {CueportError} INVALID_MESSAGE for an unclosed `[` or `{`
 */
export function globOf(pattern: string): RegExp {
  const cached = globs.get(pattern);
  if (cached) return cached;
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") source += ".*";
    else if (c === "?") source += ".";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 1);
      if (end < 0) throw badPattern(pattern, "an unclosed [");
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith("!");
      if (negate) body = body.slice(1);
      source += `[${negate ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
      i = end;
    } else if (c === "{") {
      const end = pattern.indexOf("}", i + 1);
      if (end < 0) throw badPattern(pattern, "an unclosed {");
      source += `(?:${pattern.slice(i + 1, end).split(",").map(escape).join("|")})`;
      i = end;
    } else source += escape(c);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(`^${source}$`);
  } catch {
    throw badPattern(pattern, "not a valid range");
  }
  if (globs.size > 256) globs.clear();
  globs.set(pattern, regex);
  return regex;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

function badPattern(pattern: string, why: string): CueportError {
  return new CueportError("INVALID_MESSAGE", `Invalid address pattern "${pattern}": ${why}`, {
    field: "address",
  });
}

/**
 * The calls an address makes (several for a pattern), in table order.
 * @throws {CueportError} NOT_FOUND for an address of no row; INVALID_MESSAGE for a bad pattern
 */
export function matchAddress(address: string, values: PatternValues): Match[] {
  const known = fixedMatches.get(address);
  if (known) return known;
  if (!address.startsWith("/") || address.length > 1024) {
    throw new CueportError("INVALID_MESSAGE", "Invalid address: must start with /", {
      field: "address",
    });
  }
  const parts = address.slice(1).split("/");
  for (const entry of BY_HEAD.get(parts[0]!) ?? []) {
    const seen = { isFixed: true };
    const found = matchEntry(entry, parts, values, seen);
    if (found) {
      if (found.length > MAX_MATCHES) {
        throw new CueportError(
          "INVALID_MESSAGE",
          `Invalid address pattern: it names ${found.length} addresses, at most ${MAX_MATCHES}`,
          { field: "address" },
        );
      }
      if (seen.isFixed) {
        if (fixedMatches.size >= MAX_FIXED_MATCHES) fixedMatches.clear();
        fixedMatches.set(address, found);
      }
      return found;
    }
  }
  throw new CueportError(
    "NOT_FOUND",
    `No OSC address ${address.slice(0, 200)}: see docs/osc.md (or /get/... for queries)`,
    { field: "address" },
  );
}

/**
 * The calls of one row, or null when the address is not this row;
 * `seen.isFixed` is cleared when a pattern stood for Clip or Song ids (the
 * calls then depend on the Project).
 */
function matchEntry(
  entry: OscAddress,
  parts: string[],
  values: PatternValues,
  seen: { isFixed: boolean },
): Match[] | null {
  let calls: Array<Map<string, string>> = [new Map()];
  let at = 0;
  for (const segment of entry.segments) {
    if ("literal" in segment) {
      if (parts[at] !== segment.literal) return null;
      at++;
      continue;
    }
    const taken = parts.slice(at, at + segment.span);
    if (taken.length < segment.span) return null;
    at += segment.span;
    const text = taken.join("/");
    if (!PATTERN_CHARS.test(text)) {
      for (const call of calls) call.set(segment.param.name, text);
      continue;
    }
    const domain = segment.param.kind === "control"
      ? CONTROL_IDS
      : segment.param.kind === "clipId"
      ? values.clipIds()
      : segment.param.kind === "songId"
      ? values.songIds()
      : null;
    if (!domain) {
      throw badPattern(text, `{${segment.param.name}} takes no pattern`);
    }
    if (segment.param.kind !== "control") seen.isFixed = false;
    const regex = globOf(segment.param.kind === "control" ? text.toUpperCase() : text);
    const picked = domain.filter((v) => regex.test(v));
    calls = calls.flatMap((call) => picked.map((v) => new Map([...call, [segment.param.name, v]])));
  }
  if (at !== parts.length) return null;
  return calls.map((fromPath) => ({ entry, fromPath }));
}
