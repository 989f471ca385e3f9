/**
 * The editor page's session on the player's side, without a browser: each
 * page message becomes the catalog edit it stands for (the code, a control
 * of an isf preset or of another type, undo and redo), a refusal comes back
 * with its problems, and the preview is the output's state, smaller and
 * silent, with the preset drawn over it.
 */
import assert from "node:assert/strict";
import type { EditApplyParams, EditApplyResult } from "../../../protocol/edits/mod.ts";
import type { Preset } from "../../../protocol/model.ts";
import type { RenderState } from "../../../protocol/output.ts";
import type { EditorState } from "../../../protocol/state.ts";
import { EditorPage } from "../../../player/output/editor_page.ts";
import {
  EDITOR_CLOSED,
  EDITOR_EDITS_WAITING,
  EDITOR_SOCKET_BOUNDS,
  EDITOR_TAKEN,
} from "../../../protocol/editor_page.ts";
import { CLOSE_POLICY, CLOSE_TOO_BIG } from "../../../protocol/socket_bounds.ts";
import { SocketFaultLog } from "../../../player/output/socket_log.ts";
import { IsfPrograms } from "../../../player/output/isf_programs.ts";
import { isfHeaderParameters, parseIsf } from "../../../player/isf/mod.ts";
import { Refusal } from "../../../player/errors.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";
import { TWO_PASS_BLUR } from "../isf/_passes_shaders.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const isfPreset: Preset = {
  id: "fx-user-1",
  kind: "effect",
  name: "Invert",
  type: "isf",
  builtIn: false,
  quarantine: null,
  parameters: isfHeaderParameters(INVERT),
  code: INVERT,
};

const glowPreset: Preset = {
  id: "fx-user-2",
  kind: "effect",
  name: "Glow",
  type: "glow",
  builtIn: false,
  quarantine: null,
  parameters: [{ name: "size", type: "number", min: 0, max: 10, default: 2 }],
  code: "",
};

function renderState(): RenderState {
  return {
    seq: 1,
    clock: { now: 0, rate: 0 },
    display: { width: 1920, height: 1080, fps: 30, backgroundColor: "#000000", zoom: 1 },
    layers: [],
    song: null,
    visualizers: [],
    level: 0.8,
    fullScreen: false,
    panic: 0,
  };
}

/** A session on a fake socket: what it sent, the edits it ran. */
function session(preset: Preset, refuse?: Refusal, options: { hold?: boolean } = {}) {
  let isOpen = true;
  const sent: Json[] = [];
  const edits: EditApplyParams[] = [];
  const closed: unknown[] = [];
  const socket = {
    readyState: WebSocket.OPEN,
    send: (text: string) => sent.push(JSON.parse(text)),
    close: (...args: unknown[]) => closed.push(args),
  } as unknown as WebSocket & { onmessage: (e: { data: string }) => void; onopen: () => void };
  let shown = 0;
  let hidden = 0;
  /** Edits held (`options.hold`): each resolves when the test says. */
  const held: (() => void)[] = [];
  const lines: string[] = [];
  let state: EditorState = {
    kind: preset.kind,
    presetId: preset.id,
    openedAt: "2026-11-27T00:00:00.000Z",
    preset,
    updatedAt: null,
    shown: false,
  };
  const page = new EditorPage({
    hooks: {
      state: () => isOpen ? state : null,
      shown: () => shown++,
      hidden: () => hidden++,
      closed: () => {},
      edit: (build) => {
        let params: EditApplyParams;
        try {
          params = build();
        } catch (error) {
          return Promise.reject(error);
        }
        edits.push(params);
        if (refuse) return Promise.reject(refuse);
        const result = { revision: 7, edits: [{ message: "done" }] } as EditApplyResult;
        if (options.hold) return new Promise((resolve) => held.push(() => resolve(result)));
        return Promise.resolve(result);
      },
    },
    programs: new IsfPrograms(parseIsf),
    now: () => 42,
    refresh: () => {},
    monotonic: () => 0,
    faults: new SocketFaultLog((line) => lines.push(line), () => 0, () => () => {}),
  });
  page.connected(socket);
  socket.onopen();
  /** Sends `m` (text as it is, anything else as JSON); its answer comes in a later task. */
  const message = async (m: Json) => {
    socket.onmessage({ data: typeof m === "string" ? m : JSON.stringify(m) });
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return {
    page,
    sent,
    edits,
    message,
    shownCount: () => shown,
    hiddenCount: () => hidden,
    held,
    lines,
    socket,
    firstClosed: () => closed,
    closeEditor: () => isOpen = false,
    /** The editor closed and opened again at `openedAt` (one burst: the page stays). */
    reopen: (openedAt: string) => state = { ...state, openedAt, shown: false },
  };
}

Deno.test("EditorPage: the page's messages are catalog edits of the open preset", async () => {
  const s = session(isfPreset);
  await s.message({ type: "hello", gl: "webgl2" });
  assert.equal(s.shownCount(), 1);
  await s.message({ type: "edit", id: 1, code: "new code", base: INVERT });
  await s.message({ type: "param", id: 2, name: "amount", value: 0.5 });
  await s.message({ type: "history", id: 3, direction: "undo" });
  const [code, param, undo] = s.edits.map((e) => e.edits[0]!);
  assert.deepEqual(code, {
    name: "preset.update",
    params: { kind: "effect", presetID: "fx-user-1", code: "new code" },
  });
  assert.equal(param!.name, "preset.update");
  assert.equal((param!.params as Json).code, INVERT.replace(`"DEFAULT": 1.0`, `"DEFAULT": 0.5`));
  assert.deepEqual(undo, { name: "project.undo", params: {} });
  assert.ok(s.edits.every((e) => e.projectId === null), "the active Project's edits");
  const answers = s.sent.filter((m) => m.type === "edited");
  assert.deepEqual(answers.map((a) => [a.id, a.ok, a.revision]), [[1, true, 7], [2, true, 7], [
    3,
    true,
    7,
  ]]);
});

Deno.test("EditorPage: with the editor closed, no edit runs, undo and redo neither", async () => {
  const s = session(isfPreset);
  s.closeEditor();
  await s.message({ type: "history", id: 1, direction: "undo" });
  await s.message({ type: "edit", id: 2, code: "new code", base: INVERT });
  assert.deepEqual(s.edits, []);
  const answers = s.sent.filter((m) => m.type === "edited");
  assert.deepEqual(answers.map((a) => [a.id, a.ok]), [[1, false], [2, false]]);
});

Deno.test("EditorPage: the editor closed closes its page's socket, which is told not to come back", () => {
  const s = session(isfPreset);
  s.page.push(null);
  assert.deepEqual(s.firstClosed(), []);
  s.closeEditor();
  s.page.push(null);
  assert.deepEqual(s.firstClosed(), [[EDITOR_CLOSED, "the editor closed"]]);
});

Deno.test("EditorPage: the page showing an editor opened again says so: shown", async () => {
  const s = session(isfPreset);
  s.page.push(null);
  const first = s.sent.filter((m) => m.type === "editor");
  assert.equal(first.length, 1);
  assert.equal(first[0].openedAt, "2026-11-27T00:00:00.000Z");
  s.reopen("2026-11-27T00:00:05.000Z");
  s.page.push(null);
  const editors = s.sent.filter((m) => m.type === "editor");
  assert.equal(editors.length, 2, "the same preset, opened again, is sent again");
  assert.equal(editors[1].openedAt, "2026-11-27T00:00:05.000Z");
  await s.message({ type: "shown", openedAt: "2026-11-27T00:00:00.000Z" });
  assert.equal(s.shownCount(), 0, "an answer to the editor before is not this one's");
  await s.message({ type: "shown", openedAt: "2026-11-27T00:00:05.000Z" });
  assert.equal(s.shownCount(), 1);
});

Deno.test("EditorPage: code applied over a change the page had not seen is refused", async () => {
  const s = session(isfPreset);
  await s.message({ type: "edit", id: 1, code: "mine", base: "what the page showed" });
  assert.deepEqual(s.edits, []);
  const answer = s.sent.find((m) => m.type === "edited");
  assert.equal(answer.ok, false);
  assert.match(answer.message, /changed elsewhere/);
  // The vertex shader too: typed over one the preset no longer has.
  await s.message({
    type: "edit",
    id: 2,
    code: INVERT,
    base: INVERT,
    vertexCode: "void main() { isf_vertShaderInit(); }",
    vertexBase: "an older vertex shader",
  });
  assert.deepEqual(s.edits, []);
  assert.match(s.sent.at(-1).message, /changed elsewhere/);
  // Over the one it has (none): an edit of both.
  await s.message({
    type: "edit",
    id: 3,
    code: INVERT,
    base: INVERT,
    vertexCode: "vs",
    vertexBase: "",
  });
  // (`s.edits` narrowed to [] by the assertion above.)
  assert.deepEqual((s.edits as unknown as Json[])[0]!.edits[0].params, {
    kind: "effect",
    presetID: isfPreset.id,
    code: INVERT,
    vertexCode: "vs",
  });
});

Deno.test("EditorPage: a control of a preset of another type writes its parameters", async () => {
  const s = session(glowPreset);
  await s.message({ type: "param", id: 1, name: "size", value: 5 });
  assert.deepEqual((s.edits[0]!.edits[0]!.params as Json).parameters, [
    { name: "size", type: "number", min: 0, max: 10, default: 5 },
  ]);
});

Deno.test("EditorPage: a refused edit is answered with its problems", async () => {
  const problems = [{ line: 14, column: 1, message: "GLSL syntax" }];
  const refusal = new Refusal("The code has 1 problem", -32006, { field: "params.code", problems });
  const s = session(isfPreset, refusal);
  await s.message({ type: "edit", id: 9, code: "broken", base: INVERT });
  const answer = s.sent.find((m) => m.type === "edited");
  assert.deepEqual(answer, {
    type: "edited",
    id: 9,
    ok: false,
    message: "The code has 1 problem",
    problems,
  });
  // A control naming no input of the header is refused before any edit runs.
  await s.message({ type: "param", id: 10, name: "gain", value: 1 });
  assert.equal(s.edits.length, 1);
  assert.match(s.sent.at(-1).message, /declares no parameter "gain"/);
});

Deno.test("EditorPage: the preview is the output's state, smaller, silent, with the preset over it", () => {
  const s = session(isfPreset);
  s.page.push(renderState());
  const editor = s.sent.find((m) => m.type === "editor");
  assert.equal(editor.preset.code, INVERT);
  const programs = s.sent.filter((m) => m.type === "programs").flatMap((m) => m.programs);
  const { state } = s.sent.find((m) => m.type === "state");
  assert.deepEqual([state.display.width, state.display.height, state.level], [480, 270, 0]);
  assert.equal(state.visualizers.length, 1);
  const pass = state.visualizers[0];
  assert.ok(programs.some((p: Json) => p.name === pass.program), "its program is sent first");
  assert.deepEqual(pass.uniforms, { amount: 1 });
  // The same preset again: not sent again.
  s.page.push(renderState());
  assert.equal(s.sent.filter((m) => m.type === "editor").length, 1);
});

Deno.test("EditorPage: the preview leaves out a quarantined preset (its shader stopped the output)", () => {
  const quarantine = { at: "2026-11-29T09:00:00.000Z", reason: "stalled" };
  const s = session({ ...isfPreset, quarantine });
  s.page.push(renderState());
  const { state } = s.sent.find((m) => m.type === "state");
  assert.deepEqual(state.visualizers, []);
});

Deno.test("EditorPage: a second page is closed while the first has the editor, which keeps it", async () => {
  const s = session(isfPreset);
  const closed: unknown[] = [];
  const second = {
    readyState: WebSocket.CONNECTING,
    send() {},
    close: (...args: unknown[]) => closed.push(args),
  } as unknown as WebSocket & { onopen: () => void };
  s.page.connected(second);
  second.onopen();
  assert.deepEqual(closed, [[EDITOR_TAKEN, "another editor page has the editor"]]);
  assert.deepEqual(s.firstClosed(), []);
  await s.message({ type: "edit", id: 1, code: "new code", base: INVERT });
  assert.equal(s.edits.length, 1, "the first page's edits still run");
  assert.equal(s.lines.length, 1);
});

Deno.test("EditorPage: shown only while its page is connected", async () => {
  const s = session(isfPreset);
  await s.message({ type: "hello", gl: "webgl2" });
  assert.deepEqual([s.shownCount(), s.hiddenCount()], [1, 0]);
  (s.socket as unknown as { onclose: () => void }).onclose();
  assert.equal(s.hiddenCount(), 1);
});

Deno.test("EditorPage: 3000 edits: a few wait their turn, the rest refused at once, then it is closed", async () => {
  const s = session(isfPreset, undefined, { hold: true });
  for (let id = 1; id <= 3000; id++) {
    s.socket.onmessage({ data: JSON.stringify({ type: "history", id, direction: "undo" }) });
  }
  await s.message({ type: "ping", t0: 0 }); // ignored: closed
  assert.equal(s.edits.length, 1, "one runs at a time");
  const refused = s.sent.filter((m) => m.type === "edited" && !m.ok);
  assert.equal(refused.length, EDITOR_SOCKET_BOUNDS.burstMessages - EDITOR_EDITS_WAITING);
  assert.match(refused[0].message, /^Too many edits wait \(4\): wait for their answers/);
  assert.deepEqual(s.firstClosed(), [[CLOSE_POLICY, "too fast"]]);
  while (s.held.length > 0) {
    s.held.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  assert.equal(s.edits.length, EDITOR_EDITS_WAITING, "the waiting ones ran, in order");
  const done = s.sent.filter((m) => m.type === "edited" && m.ok).map((m) => m.id);
  assert.deepEqual(done, [1, 2, 3, 4]);
  assert.equal(s.lines.length, 1, s.lines.join("\n"));
});

Deno.test("EditorPage: garbage or a message past its size closes the page (1008, 1009)", async () => {
  const garbage = session(isfPreset);
  await garbage.message("not json");
  await garbage.message({ type: "edit", id: 1, code: "x", base: INVERT });
  assert.deepEqual(garbage.firstClosed(), [[CLOSE_POLICY, "not valid"]]);
  assert.deepEqual(garbage.edits, [], "nothing after it is handled");
  const forged = session(isfPreset);
  await forged.message({ type: "edit", id: "1", code: 2 });
  assert.deepEqual(forged.firstClosed(), [[CLOSE_POLICY, "not valid"]]);
  const large = session(isfPreset);
  await large.message("x".repeat(EDITOR_SOCKET_BOUNDS.maxTextChars + 1));
  assert.deepEqual(large.firstClosed(), [[CLOSE_TOO_BIG, "too large"]]);
  assert.match(large.lines[0]!, /the editor page's socket: a text message of \d+ characters/);
});

Deno.test("EditorPage: a multi-pass preset's targets are sized for the preview", () => {
  const blur: Preset = {
    ...isfPreset,
    code: TWO_PASS_BLUR,
    parameters: isfHeaderParameters(TWO_PASS_BLUR),
  };
  const s = session(blur);
  // The output's own multi-pass Effect on a layer, its targets sized for 1920x1080.
  const output = renderState();
  const sizes: [number, number][] = [[480, 270], [1920, 1080]];
  output.layers.push({
    clipId: "c",
    kind: "image",
    source: "media/p/f",
    name: "c",
    position: 0,
    at: 0,
    rate: 0,
    duration: 10,
    loop: false,
    opacity: 1,
    volume: 1,
    filters: { brightness: 0, contrast: 1, saturation: 1, hue: 0, blur: 0 },
    effects: [{ program: "isf-x", uniforms: {}, id: "fx", sizes }],
  });
  s.page.push(output);
  const { state } = s.sent.find((m) => m.type === "state");
  // floor($WIDTH/4.0) x floor($HEIGHT/4.0) of 480x270; the last pass draws the picture.
  assert.deepEqual(state.visualizers[0].sizes, [[120, 67], [480, 270]]);
  // The layer's, scaled as the picture (a quarter here); the output's state is left as it was.
  assert.deepEqual(state.layers[0].effects[0].sizes, [[120, 68], [480, 270]]);
  assert.deepEqual(output.layers[0]!.effects[0]!.sizes, [[480, 270], [1920, 1080]]);
});

Deno.test("EditorPage: its page's report is its stats (/health output.editor), a bad one closes it", async () => {
  const s = session(isfPreset);
  assert.equal(s.page.stats, null, "none before a report");
  const glObjects = {
    programs: 3,
    shaders: 6,
    textures: 4,
    framebuffers: 2,
    renderbuffers: 0,
    buffers: 1,
    vertexArrays: 1,
  };
  await s.message({ type: "report", glObjects, compileErrors: 5 });
  assert.deepEqual(s.page.stats, { glObjects, compileErrors: 5 });
  await s.message({ type: "report", glObjects: null, compileErrors: 6 });
  assert.deepEqual(s.page.stats, { glObjects: null, compileErrors: 6 }, "no WebGL2: null");
  await s.message({ type: "report", glObjects, compileErrors: -1 });
  assert.equal(s.firstClosed().length, 1, "a report out of its schema closes the page");
  assert.deepEqual(s.page.stats, { glObjects: null, compileErrors: 6 }, "the last known stays");
});
