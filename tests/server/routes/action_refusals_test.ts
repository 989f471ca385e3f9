/**
 * An action's rules are checked at the service's edge (`server/core/action_rules.ts`); the
 * player checks the params again against the same declaration and refuses what the show's
 * state decides. Every refusal reaches an HTTP caller with its status, code and field: the
 * rules' refusals from the service (one of each param kind, `base`, velocity, the envelope),
 * the state's from the player. And what the service hands the player is always of the
 * action's declared schema.
 */
import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { ACTIONS, normalizedParamsSchema, type ParamKind } from "../../../protocol/actions.ts";
import { ActionRunParams as MethodsRun } from "../../../protocol/methods.ts";
import { normalizeAction } from "../../../server/core/mod.ts";

/** A refused action: its body and the answer's status, code and named field (if any). */
interface Refused {
  body: Record<string, unknown>;
  status: number;
  code: string;
  field?: string;
}

/** What the rules refuse: one case per kind of param and per envelope field. */
const RULE_REFUSALS: Refused[] = [
  ["NOPE", [], "name"],
  ["PLAY_IN", "x", "params"],
  ["PLAY_IN", [1], "params"],
  ["SEEK_CLIP_IN", ["c1"], "params[1] (percent)"],
  ["SEEK_CLIP_IN", ["c1", 1.5], "params[1] (percent)"],
  ["SEEK_CLIP_IN", ["", 0.5], "params[0] (clipID)"],
  ["OUTPUT_LEVEL_IN", [-0.1], "params[0] (level)"],
  ["SONG_SELECT_IN", [-1], "params[0] (index)"],
  ["SONG_SELECT_IN", ["two"], "params[0] (index)"],
  ["SONG_SELECT_IN", [1, "maybe"], "params[1] (stopPlaying)"],
  ["SET_CONTROL", [1, 0.5], "params[0] (controlID)"],
  ["SET_CONTROL", ["A"], "params[1] (value)"],
  ["SET_CONTROL", ["A", "x"], "params[1] (value)"],
  ["SET_PARAM", ["c1/opacity", 1], "params[0] (targetID)"],
  ["CLIP_DIRECTION", ["c1", "sideways"], "params[1] (direction)"],
  ["RECORD_TOGGLE", ["later"], "params[0] (mode)"],
  ["OPEN_EDITOR", ["shader", "p"], "params[0] (kind)"],
  ["PLAY_CLIP_IN", [{ a: 1 }], "params[0] (clipID)"],
].map(([name, params, field]) => ({
  body: { name, params },
  status: 400,
  code: "INVALID_MESSAGE",
  field: field as string,
}));

/** The envelope's rules: `base`, velocity, the target Project. */
const ENVELOPE_REFUSALS: Refused[] = [
  [{ name: "SONG_SELECT_IN", params: [0], base: 1 }, "params[0] (index)"],
  [{ name: "PLAY_IN", base: 2 }, "base"],
  [{ name: "PLAY_IN", base: "1" }, "base"],
  ...[-1, 128, 1.5, "64"].map((velocity) => [
    { name: "PLAY_CLIP_IN", params: ["c1"], velocity },
    "velocity",
  ]),
  [{ name: "PLAY_IN", projectID: "" }, "projectID"],
  [{ name: "PROJECT_SELECT", params: ["show"], projectID: "show" }, "projectID"],
  [{ name: "PLAY_IN", extra: 1 }, "extra"],
].map(([body, field]) => ({
  body: body as Record<string, unknown>,
  status: 400,
  code: "INVALID_MESSAGE",
  field: field as string,
}));

/**
 * What only the show's state refuses: the player's refusals (500 `ACTION_FAILED`, its reason
 * the message, docs/api.md), and the service's of a Project it knows is not there.
 */
const STATE_REFUSALS: Refused[] = [
  ...[
    { name: "PLAY_CLIP_IN", params: ["ghost"] },
    { name: "SONG_SELECT_BY_ID", params: ["ghost"] },
    { name: "SEEK_CLIP_IN", params: ["ghost", 0.5] },
    { name: "SET_PARAM", params: ["clip:ghost/opacity", 1] },
    { name: "OPEN_EDITOR", params: ["effect", "nope"] },
  ].map((body) => ({ body, status: 500, code: "ACTION_FAILED" })),
  { body: { name: "PLAY_IN", projectID: "ghost" }, status: 404, code: "NOT_FOUND" },
  { body: { name: "PROJECT_SELECT", params: ["ghost"] }, status: 404, code: "NOT_FOUND" },
];

Deno.test("POST /api/v1/action: every refusal reaches the caller with its status, code and field", async () => {
  const svc = await startTestService();
  try {
    const wrong: string[] = [];
    for (
      const { body, status, code, field } of [
        ...RULE_REFUSALS,
        ...ENVELOPE_REFUSALS,
        ...STATE_REFUSALS,
      ]
    ) {
      const res = await svc.post("/api/v1/action", body);
      const got = {
        status: res.status,
        code: res.body?.error?.code,
        field: res.body?.error?.details?.field,
      };
      if (
        got.status !== status || got.code !== code || (field !== undefined && got.field !== field)
      ) {
        wrong.push(`${JSON.stringify(body)}: ${JSON.stringify(res.body)} (${res.status})`);
      }
    }
    assert.deepEqual(wrong, []);
    // The player is still serving: the refusals changed nothing and broke nothing.
    const ok = await svc.post("/api/v1/action", { name: "PLAY_CLIP_IN", params: ["c1"] });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  } finally {
    await svc.stop();
  }
});

/** A wire value of each kind, as a client may send it (strings, other case, 1-based ready). */
const SAMPLES: Record<ParamKind, unknown[]> = {
  clipId: ["c1", 42],
  songId: ["s1"],
  projectId: ["show"],
  text: ["20"],
  index: [1, "2"],
  fraction: [0, "0.5", 1],
  number: [-3.5, "2"],
  boolean: [true, "off", 1],
  control: ["b", "Z"],
  target: ["clip:c1/opacity"],
  direction: ["forward", "reverse"],
  recordMode: ["NOW", "next-trigger"],
  presetKind: ["effect", "Visualizer"],
  region: ["FULL", " 0.6,0,0.4,1; left=0.25 "],
};

Deno.test("normalizeAction() hands the player only params of the action's declared schema", () => {
  let tried = 0;
  for (const spec of ACTIONS) {
    for (let variant = 0; variant < 3; variant++) {
      const params = spec.params.map((p) => SAMPLES[p.kind][variant % SAMPLES[p.kind].length]);
      for (const base of [0, 1]) {
        const action = normalizeAction({ name: spec.name, params, base, velocity: 64 });
        const checked = normalizedParamsSchema(spec.name).safeParse(action.params);
        assert.ok(checked.success, `${spec.name} ${JSON.stringify(params)}: ${checked.error}`);
        assert.ok(MethodsRun.safeParse(action).success, spec.name);
        tried++;
      }
    }
  }
  assert.equal(tried, ACTIONS.length * 6);
});
