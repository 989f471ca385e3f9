/**
 * The action rules are declared once (`protocol/action_rules.ts`, the flags of
 * `protocol/actions.ts`); every place that checks or describes them derives from
 * that: the HTTP check and its OpenAPI document, the MCP tools, the player
 * protocol, the views, the Companion catalog. Found by walking what each one
 * describes, so a new place that describes velocity or `base` is checked too.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import {
  BASE,
  BOOLEAN_WORDS,
  CONTROL_IDS,
  CONTROL_LETTER,
  CONTROL_NORMALIZED,
  DIRECTIONS,
  FRACTION,
  INDEX_MIN,
  isVelocity,
  NUMBER_CONVENTION,
  PRESET_KINDS,
  RECORD_MODES,
  TARGET_PATTERN,
  VELOCITY,
  VELOCITY_RANGE,
  velocitySchema,
} from "../../protocol/action_rules.ts";
import {
  ACTIONS,
  ACTIONS_BY_NAME,
  BASE_SHIFTED_ACTIONS,
  normalizedParamsSchema,
  type ParamKind,
  VELOCITY_ACTIONS,
} from "../../protocol/actions.ts";
import { METHODS } from "../../protocol/methods.ts";
import { allRoutes } from "../../server/routes/mod.ts";
import { openApiDocument } from "../../server/routes/openapi.ts";
import { ToolTable } from "../../server/mcp/tools.ts";
import { buildCatalog } from "../../integrations/companion/deno/catalog.ts";
import { normalizeAction } from "../../server/core/mod.ts";
import { ReadModel } from "../../server/core/read_model.ts";
import { ADDRESSES } from "../../server/osc/addresses.ts";
import { buildNamespace, nodeAt, type QueryNode } from "../../server/osc/query_namespace.ts";

type Json = Record<string, unknown>;

Deno.test("isVelocity() and velocitySchema() agree on every value: the plain check is the schema's", () => {
  const values: unknown[] = [
    -1,
    0,
    1,
    63.5,
    126,
    127,
    128,
    -0,
    1e3,
    NaN,
    Infinity,
    -Infinity,
    2 ** 53,
    "64",
    null,
    undefined,
    true,
    [64],
    { v: 64 },
  ];
  for (let v = VELOCITY.min - 2; v <= VELOCITY.max + 2; v++) values.push(v);
  const schema = velocitySchema();
  for (const value of values) {
    assert.equal(isVelocity(value), schema.safeParse(value).success, `velocity ${String(value)}`);
  }
  // Against the specification's numbers (MIDI's 0-127), not the constants alone.
  assert.deepEqual([isVelocity(0), isVelocity(127), isVelocity(-1), isVelocity(128)], [
    true,
    true,
    false,
    false,
  ]);
});

/** Every `{property name, schema}` of a JSON Schema tree named `name`, with where it was found. */
function propertiesNamed(root: unknown, name: string, where: string): Array<[string, Json]> {
  const found: Array<[string, Json]> = [];
  const walk = (node: unknown, path: string) => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}[${i}]`));
    if (typeof node !== "object" || node === null) return;
    const props = (node as Json).properties as Json | undefined;
    if (props && typeof props[name] === "object") found.push([path, props[name] as Json]);
    for (const [key, value] of Object.entries(node)) walk(value, `${path}.${key}`);
  };
  walk(root, where);
  return found;
}

/** The numeric bounds a schema (or the non-null branch of its union) declares. */
function bounds(schema: Json): { min: unknown; max: unknown } {
  const branches = (schema.anyOf as Json[] | undefined) ?? [schema];
  const numeric = branches.find((b) => b.type === "integer" || b.type === "number") ?? {};
  return { min: numeric.minimum, max: numeric.maximum };
}

/** The values a schema allows when it is a union of constants (`base`). */
function constants(schema: Json): unknown[] {
  const branches = (schema.anyOf as Json[] | undefined) ?? [schema];
  return branches.flatMap((b) => ("const" in b ? [b.const] : (b.enum as unknown[]) ?? []));
}

/** Everything the service and the player describe: the OpenAPI document, the tools, the methods. */
function described(): Array<[string, unknown]> {
  const routes = allRoutes({
    version: "x",
    startedAt: 0,
    ports: () => ({ http: 0, ws: 0, osc: 0 }),
    clients: () => ({ websocket: 0, mcp: 0, osc: 0 }),
  });
  const tools = new ToolTable({ maxUploadBytes: 1 });
  const toJson = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });
  return [
    ["openapi", openApiDocument.build(routes, "x")],
    ...tools.tools.map((t) => [`mcp ${t.name}`, tools.listing(t)] as [string, unknown]),
    ...Object.entries(METHODS).flatMap(([m, s]) => [
      [`${m} params`, toJson(s.params)] as [string, unknown],
      [`${m} result`, toJson(s.result)] as [string, unknown],
    ]),
  ];
}

Deno.test("VELOCITY: every described velocity has the protocol's range", () => {
  const found = described().flatMap(([where, doc]) => propertiesNamed(doc, "velocity", where));
  const wrong = found.filter(([, s]) => {
    const { min, max } = bounds(s);
    return min !== VELOCITY.min || max !== VELOCITY.max;
  });
  assert.deepEqual(wrong, []);
  // The action body, its result, the play states, the MCP tools, action.run and state.get at least.
  assert.ok(found.length >= 8, `${found.length} velocities described`);
  const ranges = found.flatMap(([, s]) => /\b\d+-\d+\b/.exec(String(s.description ?? "")) ?? []);
  assert.ok(ranges.length >= 3, `${ranges.length} ranges written out`);
  assert.deepEqual(ranges.filter((r) => r !== VELOCITY_RANGE), []);
});

Deno.test("BASE: every described base allows the protocol's values", () => {
  const found = described().flatMap(([where, doc]) => propertiesNamed(doc, "base", where));
  assert.ok(found.length >= 2, `${found.length} bases described`);
  const wrong = found.filter(([, s]) =>
    JSON.stringify(constants(s)) !== JSON.stringify(BASE.values)
  );
  assert.deepEqual(wrong, []);
});

Deno.test("FRACTION: every fraction param is described and checked with the protocol's range", () => {
  const fractions = new Set(
    ACTIONS.flatMap((a) => a.params.filter((p) => p.kind === "fraction").map((p) => p.name)),
  );
  const tools = new ToolTable({ maxUploadBytes: 1 });
  const found = tools.tools.flatMap((t) =>
    [...fractions].flatMap((name) => propertiesNamed(tools.listing(t), name, t.name))
  );
  assert.ok(found.length >= 2, `${found.length} fraction inputs`);
  assert.deepEqual(found.filter(([, s]) => bounds(s).min !== FRACTION.min), []);
  assert.deepEqual(found.filter(([, s]) => bounds(s).max !== FRACTION.max), []);
  const seek = normalizedParamsSchema("SEEK_CLIP_IN");
  assert.ok(seek.safeParse({ clipID: "c", percent: FRACTION.max }).success);
  assert.ok(!seek.safeParse({ clipID: "c", percent: FRACTION.max + 0.01 }).success);
});

/** What the OpenAPI document and OSCQuery must say of each checked kind: the protocol's values. */
const KIND_RULES: Partial<Record<ParamKind, Json>> = {
  fraction: { minimum: FRACTION.min, maximum: FRACTION.max },
  index: { minimum: INDEX_MIN },
  control: { pattern: CONTROL_LETTER.source },
  target: { pattern: TARGET_PATTERN.source },
  direction: { enum: [...DIRECTIONS] },
  recordMode: { enum: [...RECORD_MODES] },
  presetKind: { enum: [...PRESET_KINDS] },
};

/** Every param of every action of the OpenAPI document's `Action` schema, with its kind. */
function openApiParams(): Array<{ where: string; kind: ParamKind; schema: Json }> {
  const doc = described().find(([where]) => where === "openapi")![1] as {
    components: { schemas: { Action: { oneOf: Json[] } } };
  };
  return doc.components.schemas.Action.oneOf.flatMap((entry) => {
    const spec = ACTIONS_BY_NAME.get(entry.title as string)!;
    const params = (entry.properties as { params: { prefixItems?: Json[] } }).params;
    return (params.prefixItems ?? []).map((schema, i) => ({
      where: `${spec.name} ${spec.params[i]!.name}`,
      kind: spec.params[i]!.kind,
      schema,
    }));
  });
}

Deno.test("the OpenAPI document's action params have the protocol's ranges, patterns and values", () => {
  const params = openApiParams();
  assert.equal(params.length, ACTIONS.flatMap((a) => a.params).length);
  for (const [kind, rule] of Object.entries(KIND_RULES)) {
    const ofKind = params.filter((p) => p.kind === kind);
    assert.ok(ofKind.length >= 1, `no ${kind} param described`);
    for (const { where, schema } of ofKind) {
      const said = Object.fromEntries(Object.keys(rule).map((k) => [k, schema[k]]));
      assert.deepEqual(said, rule, where);
    }
  }
  // A number is not clamped: no bounds.
  for (const { where, schema } of params.filter((p) => p.kind === "number")) {
    assert.deepEqual([schema.minimum, schema.maximum], [undefined, undefined], where);
  }
});

Deno.test("a boolean param takes the protocol's words, and the OpenAPI document says each", () => {
  for (const { where, schema } of openApiParams().filter((p) => p.kind === "boolean")) {
    for (const word of [...BOOLEAN_WORDS.true, ...BOOLEAN_WORDS.false]) {
      assert.ok(String(schema.description).includes(word), `${where}: ${schema.description}`);
    }
  }
  // TRIGGER_CLIP_IN's activateSong, sent as each word in either case, and as a word of neither.
  const activate = (word: string) =>
    normalizeAction({ name: "TRIGGER_CLIP_IN", params: ["c1", word] }).params.activateSong;
  for (const word of BOOLEAN_WORDS.true) assert.equal(activate(word.toUpperCase()), true, word);
  for (const word of BOOLEAN_WORDS.false) assert.equal(activate(` ${word} `), false, word);
  assert.throws(() => activate("maybe"), /must be true or false/);
});

Deno.test("the OpenAPI Target pattern has the protocol's bounds: 1-64 characters of id, 1-64 of name", () => {
  const [target] = openApiParams().filter((p) => p.kind === "target");
  // As JSON Schema reads it (ECMA-262, unicode).
  const pattern = new RegExp(String(target!.schema.pattern), "u");
  const id = (n: number) => "c".repeat(n);
  const name = (n: number) => "p".repeat(n);
  const cases: Array<[string, boolean]> = [
    [`clip:${id(1)}/${name(1)}`, true],
    [`clip:${id(64)}/${name(64)}`, true],
    [`clip:${id(0)}/${name(1)}`, false],
    [`clip:${id(65)}/${name(1)}`, false],
    [`clip:${id(1)}/${name(0)}`, false],
    [`clip:${id(1)}/${name(65)}`, false],
    [`clip:${id(1)}/1${name(1)}`, false],
    [`clip:a-b_c/opacity.x`, true],
  ];
  for (const [text, ok] of cases) {
    assert.equal(TARGET_PATTERN.test(text), ok, `protocol: ${text}`);
    assert.equal(pattern.test(text), ok, `openapi: ${text}`);
  }
});

/** Every node of an OSCQuery namespace. */
function nodesOf(root: QueryNode): QueryNode[] {
  return [root, ...Object.values(root.CONTENTS ?? {}).flatMap(nodesOf)];
}

Deno.test("the OSCQuery namespace's ranges and values are the protocol's; a number has its conventional one", () => {
  const root = buildNamespace(new ReadModel());
  // What each kind's RANGE must be, from the protocol's constants.
  const expected = (kind: string) =>
    kind === "fraction"
      ? { MIN: FRACTION.min, MAX: FRACTION.max }
      : kind === "number"
      ? { MIN: NUMBER_CONVENTION.min, MAX: NUMBER_CONVENTION.max }
      : kind === "index"
      ? { MIN: INDEX_MIN }
      : kind === "direction"
      ? { VALS: [...DIRECTIONS] }
      : kind === "recordMode"
      ? { VALS: [...RECORD_MODES] }
      : kind === "presetKind"
      ? { VALS: [...PRESET_KINDS] }
      : null;
  const seen = new Set<string>();
  let checked = 0;
  for (const node of nodesOf(root).filter((n) => n.RANGE)) {
    const entry = ADDRESSES.find((a) =>
      a.description === node.DESCRIPTION &&
      new RegExp(`^${a.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(node.FULL_PATH)
    );
    assert.ok(entry, node.FULL_PATH);
    const required = entry.args.filter((a) => !a.isOptional);
    assert.deepEqual(node.RANGE, required.map((a) => expected(a.kind)), node.FULL_PATH);
    required.forEach((a) => seen.add(a.kind));
    checked++;
  }
  assert.ok(checked >= ACTIONS.length, `${checked} nodes checked`);
  // RECORD_TOGGLE's mode is optional: RANGE lists the required arguments only.
  for (const kind of ["fraction", "index", "direction", "presetKind", "number"]) {
    assert.ok(seen.has(kind), `no ${kind} argument in the namespace`);
  }
  // The Controls it lists are the protocol's, and those are the letters a Control id may be.
  assert.deepEqual(Object.keys(nodeAt(root, "/control")?.CONTENTS ?? {}), [...CONTROL_IDS]);
  for (let code = 0; code < 0x80; code++) {
    const c = String.fromCharCode(code);
    assert.equal(CONTROL_NORMALIZED.test(c), CONTROL_IDS.includes(c), `control ${c}`);
    assert.equal(CONTROL_LETTER.test(c), CONTROL_IDS.includes(c.toUpperCase()), `control ${c}`);
  }
});

Deno.test("the catalog's velocity and base flags reach the HTTP check and the Companion catalog", () => {
  const catalog = new Map(buildCatalog().actions.map((a) => [a.name, a]));
  for (const spec of ACTIONS) {
    const entry = catalog.get(spec.name)!;
    assert.equal(entry.velocity, VELOCITY_ACTIONS.has(spec.name), spec.name);
    assert.equal(entry.baseShifted, BASE_SHIFTED_ACTIONS.has(spec.name), spec.name);
  }
  for (const name of VELOCITY_ACTIONS) {
    const first = ACTIONS.find((a) => a.name === name)!.params[0]!;
    const params = first.isOptional ? [] : [first.kind === "index" ? 0 : "c1"];
    const edge = normalizeAction({ name, params, velocity: VELOCITY.max });
    assert.equal(edge.velocity, VELOCITY.max, name);
    assert.throws(() => normalizeAction({ name, params, velocity: VELOCITY.max + 1 }), name);
  }
});

/** Where a number 127 is not the velocity: a loopback address, a WebSocket length code. */
const NOT_VELOCITY = [/127\.0\.0\.1|"127\."/, /header\[1\] = 127;/];

/** The repository's root. */
const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * Velocity literals left, each with its reason (`file: line text`): none. The remote page takes
 * its velocity from the module the service serves (tests/server/web/action_rules_page_test.ts).
 */
const LEFT: ReadonlySet<string> = new Set([]);

/** Whether a hit is one of `LEFT`. */
function isLeft(file: string, text: string): boolean {
  return LEFT.has(`${file}: ${text}`);
}

Deno.test("no second declaration of the velocity range: no 127 in server/, player/ or the Companion generator", async () => {
  const found: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (/\.(ts|js)$/.test(entry.name)) {
        const lines = (await Deno.readTextFile(path)).split("\n");
        lines.forEach((line) => {
          if (!/\b127\b/.test(line) || NOT_VELOCITY.some((r) => r.test(line))) return;
          const file = path.slice(ROOT.length);
          if (!isLeft(file, line.trim())) found.push(`${file}: ${line.trim()}`);
        });
      }
    }
  };
  for (const dir of ["server", "player", "integrations/companion/deno"]) await walk(ROOT + dir);
  assert.deepEqual(found, [], "declare it in protocol/action_rules.ts and derive it");
});
