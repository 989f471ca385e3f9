import assert from "node:assert/strict";
import { ACTIONS, type ActionSpec } from "../../../protocol/actions.ts";
import { CueportError, normalizeAction } from "../../../server/core/mod.ts";
import {
  type ActionContext,
  toV6Action,
  V5_ACTIONS,
  v5NameOf,
} from "../../../server/legacy/mod.ts";

const context: ActionContext = {
  durationOf: (kind, id) =>
    kind === "clip" ? ({ c1: 10 } as Record<string, number>)[id] : id === "s0" ? null : 20,
};

/** What the core runs for a body the 5.0.0 port took. */
function normalizeV5(request: Record<string, unknown>, ctx: ActionContext = context) {
  return normalizeAction(toV6Action(request, ctx));
}

function refusal(request: Record<string, unknown>): CueportError {
  try {
    normalizeV5(request, context);
  } catch (error) {
    return error as CueportError;
  }
  throw new Error(`Accepted: ${JSON.stringify(request)}`);
}

Deno.test("v5NameOf() gives the spec's class-style names by one rule", () => {
  assert.deepEqual(
    [
      "PLAY_CLIP_BY_INDEX_IN",
      "NEXT_SONG_IN",
      "STOP_ALL_CLIPS_IN",
      "PANIC",
      "OUTPUT_LEVEL_IN",
      "FULLSCREEN_TOGGLE",
      "SEEK_CLIP_IN",
      "SEEK_SONG_IN",
    ].map(v5NameOf),
    [
      "PlayClipByIndexAction",
      "NextSongAction",
      "StopAllClipsAction",
      "PanicAction",
      "OutputLevelAction",
      "FullscreenToggleAction",
      "SeekClipAction",
      "SeekSongAction",
    ],
  );
});

/** Valid values for an action's required params, by kind. */
function validParams(spec: ActionSpec): unknown[] {
  const value: Partial<Record<string, unknown>> = {
    fraction: 0.5,
    number: 0.5,
    index: 0,
    control: "a",
    target: "clip:c/opacity",
    direction: "forward",
    presetKind: "effect",
  };
  return spec.params.filter((p) => !p.isOptional).map((p) => value[p.kind] ?? "x");
}

Deno.test("V5_ACTIONS: every catalog action 5.0.0 had, by a unique name; none of 6.0's", () => {
  const sixOnly = ACTIONS.filter((a) => a.since === "6.0").map((a) => a.name).sort();
  assert.deepEqual(sixOnly, [
    "OUTPUT_DISPLAY",
    "OUTPUT_REGION",
    "PROJECT_SELECT",
    "RECORD_TOGGLE",
    "RELEASE_CLIP_BY_INDEX_IN",
    "RELEASE_CLIP_IN",
    "SET_CONTROL",
    "SET_PARAM",
  ]);
  assert.equal(V5_ACTIONS.size, ACTIONS.length - sixOnly.length, "names are unique");
  for (const spec of ACTIONS) {
    if (spec.since === "6.0") continue;
    assert.equal(V5_ACTIONS.get(v5NameOf(spec.name)), spec);
    // Every 5.0.0 name, with valid params, runs its own action (seeks are checked below).
    if (spec.group === "seek" && spec.name !== "CLIP_DIRECTION") continue;
    const out = normalizeV5({ action: { name: v5NameOf(spec.name), params: validParams(spec) } });
    assert.equal(out.name, spec.name);
  }
});

/**
 * The 5.0.0 names the specification gives, with their 6.0 actions, copied from
 * `api-6.0.md`, section 9 (Versioning), rows "Action names" and "Seek" of the
 * 5.0.0 differences table. Params are valid ones for each action.
 */
const SPEC_V5_NAMES: [string, string, unknown[]][] = [
  ["PlayClipByIndexAction", "PLAY_CLIP_BY_INDEX_IN", [2]],
  ["NextSongAction", "NEXT_SONG_IN", []],
  ["StopAllClipsAction", "STOP_ALL_CLIPS_IN", []],
  ["PanicAction", "PANIC", []],
  ["OutputLevelAction", "OUTPUT_LEVEL_IN", [0.5]],
  ["FullscreenToggleAction", "FULLSCREEN_TOGGLE", []],
  ["SeekClipAction", "SEEK_CLIP_IN", ["c1", 2.5]],
  ["SeekSongAction", "SEEK_SONG_IN", ["s1", 10]],
];

Deno.test("the 5.0.0 port maps every name of the spec's table to its 6.0 action", () => {
  for (const [v5, v6, params] of SPEC_V5_NAMES) {
    assert.equal(normalizeV5({ action: { name: v5, params } }, context).name, v6, v5);
    assert.equal(V5_ACTIONS.get(v5)?.name, v6, v5);
  }
});

Deno.test("toV6Action() takes the 5.0.0 form: names, projectID, seconds, reverse", () => {
  assert.deepEqual(
    normalizeV5({ action: { name: "PlayClipByIndexAction", params: ["2"] }, projectID: "p" }),
    { name: "PLAY_CLIP_BY_INDEX_IN", params: { index: 2 }, projectId: "p" },
  );
  assert.equal(normalizeV5({ action: { name: "playaction" } }).name, "PLAY_IN");
  assert.equal(normalizeV5({ action: { name: "PLAY_IN" } }).name, "PLAY_IN");
  assert.deepEqual(
    normalizeV5({ action: { name: "SeekClipAction", params: ["c1", 2.5] } }, context).params,
    { clipID: "c1", percent: 0.25 },
  );
  assert.deepEqual(
    normalizeV5({ action: { name: "SeekSongAction", params: ["s1", "20"] } }, context).params,
    { songID: "s1", percent: 1 },
  );
  assert.equal(
    normalizeV5({ action: { name: "ClipDirectionAction", params: ["c1", "reverse"] } }).params
      .direction,
    "backward",
  );
});

Deno.test("normalizeV5() refuses what 5.0.0 did not have, naming the 6.0 way", () => {
  for (const name of ["SetControlAction", "SET_PARAM", "RecordToggleAction", "ReleaseClipAction"]) {
    const e = refusal({ action: { name, params: [] } });
    assert.equal(e.code, "INVALID_MESSAGE");
    assert.equal(e.details?.field, "action.name");
    assert.match(e.message, /is new in 6\.0 .*send the 6\.0 form \{"name": "[A-Z_]+"/);
  }
  assert.match(refusal({ action: { name: "PlayClipAction" }, velocity: 9 }).message, /velocity/);
  assert.equal(
    refusal({ action: { name: "PlayClipAction", velocity: 9 } }).details?.field,
    "action.velocity",
  );
  assert.match(refusal({ action: { name: "SongSelectAction" }, base: 1 }).message, /base is new/);
  // The 6.0 way named is the very action's, or that it takes no such field.
  assert.equal(
    refusal({ action: { name: "TriggerClipAction", params: ["c1"] }, velocity: 9 }).message,
    'Invalid velocity: velocity is new in 6.0: send the 6.0 form {"name": "TRIGGER_CLIP_IN", ' +
      '"params": [...], "velocity": 90} to POST /api/v1/action (5.0.0 triggers are full velocity)',
  );
  assert.equal(
    refusal({ action: { name: "NextSongAction", params: [], velocity: 9 } }).message,
    "Invalid action.velocity: velocity is new in 6.0, and NEXT_SONG_IN takes none: send the " +
      "5.0.0 body without it",
  );
  assert.equal(
    refusal({ action: { name: "PlayClipByIndexAction", params: [1] }, base: 1 }).message,
    'Invalid base: base is new in 6.0: send the 6.0 form {"name": "PLAY_CLIP_BY_INDEX_IN", ' +
      '"params": [...], "base": 1} to POST /api/v1/action (5.0.0 positions count from 0)',
  );
  assert.match(
    refusal({ action: { name: "PlayClipAction", params: ["c1"] }, base: 1 }).message,
    /base is new in 6\.0, and PLAY_CLIP_IN takes none/,
  );
  assert.match(refusal({ action: { name: "PlayzAction" } }).message, /did you mean "PlayAction"/);
  assert.match(refusal({ name: "NextSongAction" }).message, /5\.0\.0 name of NEXT_SONG_IN/);
});

Deno.test("normalizeV5() converts 5.0.0 seeks on the media's length; out of range refused", () => {
  const past = refusal({ action: { name: "SeekClipAction", params: ["c1", 11] } });
  assert.equal(past.code, "INVALID_MESSAGE");
  assert.equal(past.details?.field, "action.params[1] (position)");
  assert.match(past.message, /from 0 to 10 seconds \(the Clip's length\), got 11/);
  assert.equal(
    refusal({ action: { name: "SeekClipAction", params: ["c1", "-1"] } }).code,
    "INVALID_MESSAGE",
  );
  assert.equal(
    refusal({ action: { name: "SeekClipAction", params: ["c1"] } }).code,
    "INVALID_MESSAGE",
  );
  assert.equal(
    refusal({ action: { name: "SeekClipAction", params: ["zz", 1] } }).code,
    "NOT_FOUND",
  );
  assert.equal(
    refusal({ action: { name: "SeekSongAction", params: ["s0", 1] } }).code,
    "ACTION_FAILED",
  );
});
