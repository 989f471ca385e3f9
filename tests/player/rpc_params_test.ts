import assert from "node:assert/strict";
import { memoryTransportPair } from "../../protocol/transport.ts";
import type { RpcId, RpcMessage } from "../../protocol/jsonrpc.ts";
import {
  LogParams,
  Method,
  type MethodName,
  METHODS,
  MidiLocalParams,
  Notification,
  RequestProgressParams,
  StateUpdateParams,
} from "../../protocol/methods.ts";
import { z } from "zod";
import { startPlayer, VirtualClock } from "../../player/mod.ts";
import { fixtureDataDir } from "../../tools/testing/fixture.ts";
import { buildShowFile } from "../../tools/testing/show_files.ts";
import { jpeg } from "../../tools/testing/media.ts";
import { Project } from "../../protocol/model.ts";

type Answer = { id: RpcId | null; result?: unknown; error?: { code: number; message: string } };

/** An initialized in-process player and a way to send it any request, however malformed. */
async function connect() {
  const dataDir = await fixtureDataDir();
  const [serverSide, playerSide] = memoryTransportPair();
  const running = await startPlayer({
    dataDir,
    transport: playerSide,
    clock: new VirtualClock(),
    positionIntervalMs: 0,
  });
  const answers: Answer[] = [];
  const waiters: Array<() => void> = [];
  const notifications: Array<{ method: string; params: unknown }> = [];
  serverSide.onmessage = (m) => {
    if ("method" in m) {
      notifications.push({ method: m.method, params: m.params });
      return;
    }
    answers.push(m as Answer);
    for (const wake of waiters.splice(0)) wake();
  };
  void serverSide.start();
  let next = 1;
  /** Sends `fields` as a request (a fresh numeric id unless given) and waits for its answer. */
  const send = async (fields: Record<string, unknown>): Promise<Answer> => {
    const id = "id" in fields ? fields.id : next++;
    const count = answers.length;
    void serverSide.send({ jsonrpc: "2.0", id, ...fields } as unknown as RpcMessage);
    while (answers.length === count) await new Promise<void>((r) => waiters.push(r));
    return answers.at(-1)!;
  };
  const call = (method: string, params?: unknown) =>
    send(params === undefined ? { method } : { method, params });
  const close = async () => {
    await serverSide.close();
    await running.done;
    await Deno.remove(dataDir, { recursive: true });
  };
  await call(Method.INITIALIZE, { protocolVersion: "1.1", client: { name: "t", version: "0" } });
  return { call, send, close, dataDir, notifications };
}

/** Values of every JSON type but an object: what `params` must not be. */
const NOT_OBJECTS = [null, 5, "x", true, [], [1]];

const edit = { name: "song.add", params: { title: "Encore" } };

/**
 * Hostile params of every method, each with the field its -32602 message names.
 * `clock.advance` is offered: the player runs on a virtual clock.
 */
const CASES: Array<{ method: string; params: unknown; field: string }> = [
  ...[
    Method.INITIALIZE,
    Method.STATE_GET,
    Method.ACTION_RUN,
    Method.EDIT_APPLY,
    Method.PROJECTS_RELOAD,
    Method.CLOCK_ADVANCE,
    Method.SHUTDOWN,
    Method.APPROVAL_REQUEST,
    Method.PAIRING_SHOW,
    Method.OUTPUT_FRAME,
    Method.OUTPUT_DISPLAYS,
    Method.HEARTBEAT,
    Method.PROJECTS_CAPTURE,
    Method.PROJECTS_REPLACE,
  ].flatMap((method) => NOT_OBJECTS.map((params) => ({ method, params, field: "params" }))),
  // initialize
  { method: Method.INITIALIZE, params: {}, field: "params.protocolVersion" },
  { method: Method.INITIALIZE, params: { protocolVersion: 1 }, field: "params.protocolVersion" },
  {
    method: Method.INITIALIZE,
    params: { protocolVersion: "1.1", client: "t" },
    field: "params.client",
  },
  {
    method: Method.INITIALIZE,
    params: { protocolVersion: "1.1", client: { name: 1, version: "0" } },
    field: "params.client.name",
  },
  // action.run
  { method: Method.ACTION_RUN, params: {}, field: "params.name" },
  { method: Method.ACTION_RUN, params: { name: 5, params: {} }, field: "params.name" },
  { method: Method.ACTION_RUN, params: { name: ["PANIC"], params: {} }, field: "params.name" },
  { method: Method.ACTION_RUN, params: { name: null, params: {} }, field: "params.name" },
  { method: Method.ACTION_RUN, params: { name: "PLAY_IN", params: null }, field: "params.params" },
  { method: Method.ACTION_RUN, params: { name: "PLAY_IN", params: [] }, field: "params.params" },
  { method: Method.ACTION_RUN, params: { name: "PLAY_IN", params: "x" }, field: "params.params" },
  {
    method: Method.ACTION_RUN,
    params: { name: "PLAY_IN", params: {}, projectId: 5 },
    field: "params.projectId",
  },
  {
    method: Method.ACTION_RUN,
    params: { name: "PLAY_IN", params: {}, projectId: {} },
    field: "params.projectId",
  },
  {
    method: Method.ACTION_RUN,
    params: { name: "PLAY_CLIP_IN", params: {}, projectId: null, velocity: "loud" },
    field: "params.velocity",
  },
  {
    method: Method.ACTION_RUN,
    params: { name: "PLAY_CLIP_IN", params: {}, projectId: null, velocity: 300 },
    field: "params.velocity",
  },
  {
    method: Method.ACTION_RUN,
    params: { name: "SET_CONTROL", params: { controlID: 1, value: 0.5 }, projectId: null },
    field: "controlID",
  },
  {
    method: Method.ACTION_RUN,
    params: { name: "SET_CONTROL", params: { controlID: "A" }, projectId: null },
    field: "value",
  },
  // edit.apply
  { method: Method.EDIT_APPLY, params: {}, field: "params.edits" },
  { method: Method.EDIT_APPLY, params: { projectId: null }, field: "params.edits" },
  { method: Method.EDIT_APPLY, params: { projectId: null, edits: "x" }, field: "params.edits" },
  { method: Method.EDIT_APPLY, params: { projectId: null, edits: {} }, field: "params.edits" },
  { method: Method.EDIT_APPLY, params: { projectId: null, edits: null }, field: "params.edits" },
  { method: Method.EDIT_APPLY, params: { projectId: null, edits: [] }, field: "params.edits" },
  {
    method: Method.EDIT_APPLY,
    params: { projectId: null, edits: [null] },
    field: "params.edits.0",
  },
  { method: Method.EDIT_APPLY, params: { projectId: null, edits: [5] }, field: "params.edits.0" },
  {
    method: Method.EDIT_APPLY,
    params: { projectId: null, edits: [edit, { name: 5 }] },
    field: "params.edits.1.name",
  },
  {
    method: Method.EDIT_APPLY,
    params: { projectId: null, edits: [{ name: "toString", params: {} }] },
    field: "name",
  },
  {
    method: Method.EDIT_APPLY,
    params: { projectId: null, edits: [{ name: "song.add", params: "x" }] },
    field: "params",
  },
  {
    method: Method.EDIT_APPLY,
    params: { projectId: null, edits: [{ name: "song.add", params: { title: 5 } }] },
    field: "params.title",
  },
  {
    method: Method.EDIT_APPLY,
    params: { projectId: 5, edits: [edit] },
    field: "params.projectId",
  },
  {
    method: Method.EDIT_APPLY,
    params: { projectId: null, edits: [edit], isUpload: "yes" },
    field: "params.isUpload",
  },
  {
    method: Method.EDIT_APPLY,
    params: { projectId: null, edits: Array.from({ length: 101 }, () => edit) },
    field: "params.edits",
  },
  // clock.advance
  { method: Method.CLOCK_ADVANCE, params: {}, field: "params.ms" },
  { method: Method.CLOCK_ADVANCE, params: { ms: "5" }, field: "params.ms" },
  { method: Method.CLOCK_ADVANCE, params: { ms: -1 }, field: "params.ms" },
  { method: Method.CLOCK_ADVANCE, params: { ms: null }, field: "params.ms" },
  { method: Method.CLOCK_SHIFT, params: {}, field: "params.shiftMs" },
  { method: Method.CLOCK_SHIFT, params: { shiftMs: "5" }, field: "params.shiftMs" },
  // approval.request
  { method: Method.APPROVAL_REQUEST, params: {}, field: "params.requestId" },
  {
    method: Method.APPROVAL_REQUEST,
    params: { requestId: 1, address: "127.0.0.1", deviceName: "Desk" },
    field: "params.requestId",
  },
  {
    method: Method.APPROVAL_REQUEST,
    params: { requestId: "ap-1", deviceName: "Desk" },
    field: "params.address",
  },
  {
    method: Method.APPROVAL_REQUEST,
    params: { requestId: "ap-1", address: "127.0.0.1", deviceName: null },
    field: "params.deviceName",
  },
  // pairing.show
  { method: Method.PAIRING_SHOW, params: {}, field: "params.otp" },
  { method: Method.PAIRING_SHOW, params: { otp: 123456, expiresAt: "x" }, field: "params.otp" },
  { method: Method.PAIRING_SHOW, params: { otp: "123456" }, field: "params.expiresAt" },
  // media.locate
  { method: Method.MEDIA_LOCATE, params: { projectId: null }, field: "params.fileId" },
  { method: Method.MEDIA_LOCATE, params: { projectId: 5, fileId: "f" }, field: "params.projectId" },
  { method: Method.MEDIA_LOCATE, params: { fileId: "" }, field: "params.fileId" },
  // media.probe
  { method: Method.MEDIA_PROBE, params: {}, field: "params.path" },
  { method: Method.MEDIA_PROBE, params: { path: 5 }, field: "params.path" },
  // show.import
  { method: Method.SHOW_IMPORT, params: {}, field: "params.path" },
  { method: Method.SHOW_IMPORT, params: { path: 5 }, field: "params.path" },
  {
    method: Method.SHOW_IMPORT,
    params: { path: "/x.zip", replace: "yes" },
    field: "params.replace",
  },
  // camera.frame
  { method: Method.CAMERA_FRAME, params: {}, field: "params.cameraId" },
  { method: Method.CAMERA_FRAME, params: { cameraId: 7 }, field: "params.cameraId" },
  // timecode.sample
  {
    method: Method.TIMECODE_SAMPLE,
    params: { seconds: -1, rate: 25, motion: "forward" },
    field: "params.seconds",
  },
  {
    method: Method.TIMECODE_SAMPLE,
    params: { seconds: 1, rate: 23.976, motion: "forward" },
    field: "params.rate",
  },
  {
    method: Method.TIMECODE_SAMPLE,
    params: { seconds: 1, rate: 25, motion: "sideways" },
    field: "params.motion",
  },
  // action.batch: the batch's shape; each action is checked alone (rpc_batch_test.ts)
  { method: Method.ACTION_BATCH, params: {}, field: "params.actions" },
  { method: Method.ACTION_BATCH, params: { actions: [] }, field: "params.actions" },
  { method: Method.ACTION_BATCH, params: { actions: "SET_CONTROL" }, field: "params.actions" },
  // projects.replace: the state's shape; each Project and preset is checked by the model
  { method: Method.PROJECTS_REPLACE, params: {}, field: "params.projects" },
  {
    method: Method.PROJECTS_REPLACE,
    params: { projects: [{ name: "x" }], presets: [], closedProjectIds: [] },
    field: "params.projects.0.id",
  },
  // midi.send
  { method: Method.MIDI_SEND, params: {}, field: "params.messages" },
  {
    method: Method.MIDI_SEND,
    params: { messages: [{ port: null, data: [0x90, 36, 256] }] },
    field: "params.messages.0.data.2",
  },
  // editor.answer
  { method: Method.EDITOR_ANSWER, params: { id: -1 }, field: "params.id" },
  {
    method: Method.EDITOR_ANSWER,
    params: { id: 0, error: { code: 7 } },
    field: "params.error.code",
  },
];

Deno.test("player answers hostile params of every method with -32602 naming the field, and keeps serving", async () => {
  const p = await connect();
  try {
    const methods = new Set(CASES.map((c) => c.method));
    assert.deepEqual([...methods].sort(), Object.values(Method).sort(), "every method is tried");
    const wrong: string[] = [];
    for (const { method, params, field } of CASES) {
      const answer = await p.call(method, params);
      const message = answer.error?.message ?? "";
      if (
        answer.error?.code !== -32602 || !message.includes(`${field}:`) || message.endsWith(".")
      ) {
        const sent = JSON.stringify(params).slice(0, 60);
        wrong.push(`${method} ${sent} (${field}): ${JSON.stringify(answer).slice(0, 160)}`);
      }
    }
    assert.deepEqual(wrong, [], `${wrong.length} of ${CASES.length} not -32602 naming the field`);
    const state = await p.call(Method.STATE_GET);
    assert.ok(state.result, "the player still serves");
    const action = await p.call(Method.ACTION_RUN, {
      name: "SET_CONTROL",
      params: { controlID: "A", value: 0.5 },
      projectId: null,
    });
    assert.ok(action.result, JSON.stringify(action));
  } finally {
    await p.close();
  }
});

Deno.test("player answers names of Object.prototype members as unknown methods, actions and edits", async () => {
  const p = await connect();
  try {
    for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]) {
      const method = await p.call(name, {});
      assert.equal(method.error?.code, -32601, `method ${name}: ${JSON.stringify(method)}`);
      const action = await p.call(Method.ACTION_RUN, { name, params: {}, projectId: null });
      assert.equal(action.error?.code, -32601, `action ${name}: ${JSON.stringify(action)}`);
      const edited = await p.call(Method.EDIT_APPLY, {
        projectId: null,
        edits: [{ name, params: {} }],
      });
      assert.equal(edited.error?.code, -32602, `edit ${name}: ${JSON.stringify(edited)}`);
    }
    assert.ok((await p.call(Method.STATE_GET)).result);
  } finally {
    await p.close();
  }
});

Deno.test("player answers a request whose id is no string, number or null with -32600 and id null", async () => {
  const p = await connect();
  try {
    for (const id of [{}, [], true, { a: [1] }]) {
      const answer = await p.send({ id, method: Method.STATE_GET });
      assert.equal(answer.id, null, JSON.stringify(answer));
      assert.equal(answer.error?.code, -32600);
      assert.match(answer.error.message, /id/);
    }
    assert.ok((await p.call(Method.STATE_GET)).result);
  } finally {
    await p.close();
  }
});

Deno.test("player still accepts the params the service sends", async () => {
  const p = await connect();
  try {
    // No params at all (the service sends none) and an empty object (older clients) are both fine.
    assert.ok((await p.call(Method.STATE_GET)).result);
    assert.ok((await p.call(Method.STATE_GET, {})).result);
    // initialize without client, unknown fields ignored (a minor version may add fields)
    const init = await p.call(Method.INITIALIZE, { protocolVersion: "1.0", future: true });
    assert.ok(init.result, JSON.stringify(init));
    const action = await p.call(Method.ACTION_RUN, {
      name: "PLAY_CLIP_IN",
      params: { clipID: "c1" },
      projectId: null,
      velocity: 96,
      future: 1,
    });
    assert.ok(action.result, JSON.stringify(action));
    const missing = await p.call(Method.ACTION_RUN, {
      name: "PLAY_IN",
      params: {},
      projectId: "nope",
    });
    assert.equal(missing.error?.code, -32001);
    const edited = await p.call(Method.EDIT_APPLY, { projectId: null, edits: [edit] });
    assert.ok(edited.result, JSON.stringify(edited));
    assert.ok((await p.call(Method.CLOCK_ADVANCE, { ms: 0 })).result);
    assert.ok((await p.call(Method.PAIRING_SHOW, { otp: "1", expiresAt: "x" })).result);
  } finally {
    await p.close();
  }
});

/**
 * A valid request of every method, as the service sends it. A method added to
 * the protocol without one here fails the test below, so it is walked too.
 */
const SAMPLES: Record<MethodName, unknown> = {
  [Method.INITIALIZE]: { protocolVersion: "1.3", client: { name: "t", version: "0" } },
  [Method.STATE_GET]: undefined,
  [Method.ACTION_RUN]: {
    name: "SET_CONTROL",
    params: { controlID: "A", value: 0.5 },
    projectId: null,
    idempotencyKey: "t/1",
  },
  [Method.ACTION_BATCH]: {
    actions: [{ name: "SET_CONTROL", params: { controlID: "B", value: 0.25 }, projectId: null }],
  },
  [Method.EDIT_APPLY]: { projectId: "show", edits: [edit], isUpload: false, idempotencyKey: "t/2" },
  [Method.CLOCK_ADVANCE]: { ms: 10 },
  [Method.CLOCK_SHIFT]: { shiftMs: 0 },
  [Method.APPROVAL_REQUEST]: { requestId: "ap-1", address: "127.0.0.1", deviceName: "Desk" },
  [Method.PAIRING_SHOW]: { otp: "123456", expiresAt: "2026-11-21T19:00:00Z" },
  [Method.HEARTBEAT]: undefined,
  [Method.MEDIA_LOCATE]: { projectId: "show", fileId: "f-audio" },
  [Method.CAMERA_FRAME]: { cameraId: "test-pattern" },
  [Method.OUTPUT_FRAME]: undefined,
  [Method.OUTPUT_DISPLAYS]: undefined,
  [Method.PROJECTS_RELOAD]: undefined,
  [Method.TIMECODE_SAMPLE]: { seconds: 3600, rate: 25, motion: "forward", source: "t" },
  [Method.MIDI_SEND]: { messages: [{ port: null, data: [0x90, 36, 127] }] },
  // No edit waits for this id: taken and ignored.
  [Method.EDITOR_ANSWER]: { id: 0, error: { code: "GROUP_NO_QUORUM", message: "cut off" } },
  // Its path is set to a show file in the player's data dir before the samples run.
  [Method.SHOW_IMPORT]: { path: "/set/below.cueport.zip", replace: false },
  // Its path is set to a JPEG in the player's data dir before the samples run.
  [Method.MEDIA_PROBE]: { path: "/set/below.jpg" },
  [Method.PROJECTS_CAPTURE]: undefined,
  // Near the end: every Project of the player is replaced (by none).
  [Method.PROJECTS_REPLACE]: { projects: [], presets: [], closedProjectIds: [] },
  // Last: the session ends.
  [Method.SHUTDOWN]: undefined,
};

/** Values of each JSON type, and edge cases of strings and numbers. */
const VALUES: unknown[] = [null, 5, -1, 1.5, 300, "", "x", "x".repeat(600), true, [], [1], {}];

/** The object schema inside a params schema (`z.object`, perhaps optional), if it is one. */
function objectOf(schema: z.ZodType): z.ZodObject | null {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodOptional) return objectOf(schema.unwrap() as z.ZodType);
  return null;
}

/**
 * Params of `method` its schema refuses, each with the field the refusal must
 * name: params of another JSON type, the sample without each field, and the
 * sample with each field set to each of `VALUES` the schema refuses.
 */
function refusedParams(method: MethodName): Array<{ params: unknown; field: string }> {
  const schema: z.ZodType = METHODS[method].params;
  const cases = VALUES.map((params) => ({ params, field: "params" }));
  const sample = SAMPLES[method] as Record<string, unknown> | undefined;
  for (const key of Object.keys(objectOf(schema)?.shape ?? {})) {
    const { [key]: _, ...without } = sample ?? {};
    cases.push({ params: without, field: `params.${key}` });
    for (const value of VALUES) {
      cases.push({ params: { ...sample, [key]: value }, field: `params.${key}` });
    }
  }
  return cases.filter(({ params }) => !schema.safeParse(params).success);
}

type Player = Awaited<ReturnType<typeof connect>>;

/** The params its schema refuses that the player took (or refused without naming the field). */
async function refusalsMissed(p: Player): Promise<{ missed: string[]; tried: number }> {
  const missed: string[] = [];
  let tried = 0;
  for (const method of Object.values(Method)) {
    assert.ok(METHODS[method].params.safeParse(SAMPLES[method]).success, `${method}'s sample`);
    for (const { params, field } of refusedParams(method)) {
      tried++;
      const answer = await p.call(method, params);
      if (answer.error?.code !== -32602 || !answer.error.message.includes(field)) {
        const sent = JSON.stringify(params)?.slice(0, 80);
        missed.push(`${method} ${sent}: ${JSON.stringify(answer).slice(0, 120)}`);
      }
    }
  }
  return { missed, tried };
}

/** The answers to the samples that are not of their method's result schema, in order. */
async function unfitAnswers(p: Player): Promise<string[]> {
  const unfit: string[] = [];
  for (const method of Object.keys(SAMPLES) as MethodName[]) {
    const answer = await p.call(method, SAMPLES[method]);
    if (answer.error) {
      // No output runs in tests: output.frame is -32005 (docs/player-protocol.md).
      if (method === Method.OUTPUT_FRAME && answer.error.code === -32005) continue;
      unfit.push(`${method}: ${JSON.stringify(answer.error)}`);
      continue;
    }
    const checked = METHODS[method].result.safeParse(answer.result);
    const issue = checked.error?.issues[0];
    if (issue) unfit.push(`${method}: ${issue.path.join(".")}: ${issue.message}`);
  }
  return unfit;
}

/** The schema of each notification's params. */
const NOTIFICATIONS: Record<string, z.ZodType> = {
  [Notification.STATE_UPDATE]: StateUpdateParams,
  [Notification.REQUEST_PROGRESS]: RequestProgressParams,
  [Notification.LOG]: LogParams,
  [Notification.MIDI_LOCAL]: MidiLocalParams,
};

Deno.test("player: every method has a schema in protocol/methods.ts, and the player refuses what it refuses and answers what it declares", async () => {
  assert.deepEqual(Object.keys(METHODS).sort(), Object.values(Method).sort(), "a schema each");
  assert.deepEqual(Object.keys(SAMPLES).sort(), Object.values(Method).sort(), "a sample each");
  const p = await connect();
  try {
    const { missed, tried } = await refusalsMissed(p);
    assert.deepEqual(missed, [], `the player took ${missed.length} params its schema refuses`);
    assert.ok(tried > 200, `${tried} refusals tried`);
    // Each sample: params accepted, and a result of the declared shape (or a documented refusal).
    await Deno.mkdir(`${p.dataDir}/projects/show/media`, { recursive: true });
    await Deno.writeFile(`${p.dataDir}/projects/show/media/one.wav`, new Uint8Array(44));
    const show = `${p.dataDir}/sample.cueport.zip`;
    await Deno.writeFile(
      show,
      await buildShowFile(Project.parse({ id: "sample", name: "Sample" })),
    );
    SAMPLES[Method.SHOW_IMPORT] = { path: show, replace: false };
    await Deno.writeFile(`${p.dataDir}/sample.jpg`, jpeg(16, 9));
    SAMPLES[Method.MEDIA_PROBE] = { path: `${p.dataDir}/sample.jpg` };
    assert.deepEqual(await unfitAnswers(p), [], "every answer fits its method's result schema");
    // And what it sent meanwhile (updates of the action, the edit, the reload) fits too.
    assert.ok(p.notifications.length > 0, "the samples made updates");
    const unfit = p.notifications.filter((n) =>
      !NOTIFICATIONS[n.method]?.safeParse(n.params).success
    );
    assert.deepEqual(unfit, [], "every notification fits its schema");
  } finally {
    await p.close();
  }
});
