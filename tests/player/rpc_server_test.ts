import assert from "node:assert/strict";
import type { RpcMessage } from "../../protocol/jsonrpc.ts";
import { PLAYER_PROTOCOL_VERSION } from "../../protocol/methods.ts";
import { wavHeader } from "../../player/media/encode.ts";
import { connectInitialized, connectPlayer as connect } from "../../tools/testing/player_rpc.ts";
import { INVERT } from "../../tools/testing/isf_shaders.ts";

Deno.test("player answers nothing but initialize before the handshake, and checks the version", async () => {
  const p = await connect();
  try {
    const early = await p.call("state.get");
    assert.match(JSON.stringify(early), /Call initialize first/);
    const wrong = await p.call("initialize", {
      protocolVersion: "2.0",
      client: { name: "t", version: "0" },
    });
    assert.match(JSON.stringify(wrong), /Protocol version 2.0 is not supported/);
    const ok = await p.call("initialize", {
      protocolVersion: "1.4",
      client: { name: "t", version: "0" },
    });
    const result = (ok as { result: { protocolVersion: string; capabilities: unknown } }).result;
    assert.equal(result.protocolVersion, PLAYER_PROTOCOL_VERSION);
    assert.deepEqual(result.capabilities, { virtualClock: true, progress: true });
  } finally {
    await p.close();
  }
});

Deno.test("player writes the notifications a request caused before its response", async () => {
  const p = await connectInitialized();
  try {
    const before = p.seen.length;
    await p.call("action.run", { name: "PLAY_CLIP_IN", params: { clipID: "c1" }, projectId: null });
    const after = p.seen.slice(before);
    assert.equal(after.length, 2);
    assert.equal((after[0] as { method: string }).method, "state.update");
    const updates =
      (after[0] as { params: { updates: Array<{ data: Record<string, unknown> }> } }).params
        .updates;
    const update = updates.find((u) => u.data.event === "clip-play-state-changed")!;
    assert.deepEqual([update.data.event, update.data.clipID, update.data.newState], [
      "clip-play-state-changed",
      "c1",
      "playing",
    ]);
    assert.ok("result" in after[1]!);
    // clock-driven updates (the Clip's end) arrive before clock.advance's response too
    const mark = p.seen.length;
    await p.call("clock.advance", { ms: 10_000 });
    const ended = p.seen.slice(mark);
    assert.match(JSON.stringify(ended[0]), /"reason":"ended"/);
    assert.ok("result" in ended[1]!);
  } finally {
    await p.close();
  }
});

Deno.test("player answers a burst with one coalesced notification of its updates, then the answers", async () => {
  const p = await connectInitialized();
  try {
    const before = p.seen.length;
    const run = (value: number) =>
      p.call("action.run", {
        name: "SET_CONTROL",
        params: { controlID: "B", value },
        projectId: null,
      });
    await Promise.all([run(0.1), run(0.2), run(0.3)]); // read together: one burst
    const after = p.seen.slice(before);
    assert.deepEqual(after.map((m) => "method" in m ? m.method : m.id), [
      "state.update",
      ...after.slice(1).map((m) => (m as { id: number }).id),
    ]);
    assert.equal(after.length, 4);
    // Control B moved three times in the burst: its latest value is sent, once.
    const values = (after[0] as { params: { updates: Array<{ data: Record<string, unknown> }> } })
      .params.updates.filter((u) => u.data.event === "control-changed").map((u) => u.data.value);
    assert.deepEqual(values, [0.3]);
  } finally {
    await p.close();
  }
});

Deno.test("player runs requests in order: one that writes the Project holds those read after it", async () => {
  const p = await connectInitialized();
  try {
    const before = p.seen.length;
    const action = (name: string, params: Record<string, unknown>) =>
      p.call("action.run", { name, params, projectId: null });
    // One burst: the first waits for its Project write, the second is synchronous.
    const [direction, control] = await Promise.all([
      action("CLIP_DIRECTION", { clipID: "c1", direction: "backward" }),
      action("SET_CONTROL", { controlID: "B", value: 0.4 }),
    ]);
    assert.ok("result" in direction! && "result" in control!);
    const answers = p.seen.slice(before).filter((m) => "id" in m).map((m) => m.id);
    assert.deepEqual(answers, [direction.id, control.id]);
  } finally {
    await p.close();
  }
});

Deno.test("player answers unknown methods and refused actions with JSON-RPC errors", async () => {
  const p = await connectInitialized();
  try {
    const unknown = await p.call("nope") as { error: { code: number } };
    assert.equal(unknown.error.code, -32601);
    const refused = await p.call("action.run", {
      name: "PAUSE_IN",
      params: {},
      projectId: null,
    }) as {
      error: { code: number; message: string };
    };
    assert.deepEqual(refused.error, { code: -32000, message: "Nothing is playing" });
  } finally {
    await p.close();
  }
});

Deno.test("player answers approval requests from its setting and accepts pairing codes to show", async () => {
  const p = await connectInitialized();
  try {
    const approval = await p.call("approval.request", {
      requestId: "ap-1",
      address: "127.0.0.1",
      deviceName: "Desk",
    }) as {
      result: { decision: string };
    };
    assert.deepEqual(approval.result, { decision: "approve" });
    const shown = await p.call("pairing.show", {
      otp: "123456",
      expiresAt: "2026-11-21T19:00:00Z",
    }) as { result: unknown };
    assert.deepEqual(shown.result, {});
  } finally {
    await p.close();
  }
});

/** A valid WAV of `size` bytes in a new temp dir, written at once (sparse). */
async function bigWav(size: number): Promise<{ dir: string; path: string }> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-big-" });
  const path = `${dir}/Big.wav`;
  await Deno.writeFile(path, wavHeader(size - 44, 48_000));
  await Deno.truncate(path, size);
  return { dir, path };
}

type Progress = RpcMessage & {
  method: string;
  params: { id: number; progress: number; total: number };
};
const isProgress = (m: RpcMessage): m is Progress =>
  "method" in m && m.method === "request.progress";

Deno.test("player answers requests read after an import while the file copies", async () => {
  const p = await connectInitialized();
  const { dir, path } = await bigWav(128 * 1024 * 1024);
  try {
    const before = p.seen.length;
    const imported = p.call("edit.apply", {
      projectId: null,
      edits: [{ name: "file.import", params: { path } }],
    });
    const control = await p.call("action.run", {
      name: "SET_CONTROL",
      params: { controlID: "B", value: 0.4 },
      projectId: null,
    });
    const done = await imported as { id: number; result: { revision: number } };
    assert.ok("result" in control && "result" in done);
    const after = p.seen.slice(before);
    const answers = after.filter((m) => "id" in m).map((m) => m.id);
    assert.deepEqual(answers, [control.id, done.id], "the action did not wait for the copy");
    const progress = after.filter(isProgress);
    assert.ok(progress.length >= 2, `${progress.length} progress reports`);
    assert.ok(progress.every((m) => m.params.id === done.id && m.params.total === 128 * 2 ** 20));
    assert.equal(progress.at(-1)!.params.progress, 128 * 2 ** 20);
    assert.ok(after.indexOf(progress.at(-1)!) < after.indexOf(after.find((m) => m === done)!));
    assert.equal(done.result.revision, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await p.close();
  }
});

Deno.test("player stops a copy when its input ends, and removes the partial file", async () => {
  const p = await connectInitialized();
  const { dir, path } = await bigWav(1024 * 1024 * 1024);
  try {
    const imported = p.call("edit.apply", {
      projectId: null,
      edits: [{ name: "file.import", params: { path } }],
    });
    // The copy has started once it reports progress; an answer first is a copy that never ran.
    const started = p.waitFor((m) => isProgress(m) && m.params.progress > 0);
    const first = await Promise.race([started, imported]);
    assert.ok(
      isProgress(first as RpcMessage),
      `the copy started: ${JSON.stringify(first).slice(0, 200)}`,
    );
    const media = `${p.dataDir}/projects/show/media`;
    assert.equal(
      [...Deno.readDirSync(media)].length,
      1,
      "the partial file is there while it copies",
    );
    await p.serverSide.close();
    await p.running.done;
    // The copy stopped rather than finished, with no clock: a copy let run to its end (1 GiB)
    // is a whole file the import keeps in media/ (its edit applied), and the Project names it.
    assert.deepEqual([...Deno.readDirSync(media)], [], "the partial file removed, none kept");
    const project = await Deno.readTextFile(`${p.dataDir}/projects/show/project.json`);
    assert.doesNotMatch(project, /Big\.wav/, "the import not applied");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await p.close();
  }
});

Deno.test("player answers a heartbeat at once while an edit's Project write holds the order, with the order's figures", async () => {
  const p = await connectInitialized();
  try {
    const before = p.seen.length;
    // Read together: the edit starts its write (asynchronous), the action waits behind it,
    // and the heartbeat is answered beside them, before either.
    const edit = p.call("edit.apply", {
      projectId: null,
      edits: [{ name: "song.add", params: { title: "Encore" } }],
    });
    const action = p.call("action.run", { name: "PANIC", params: {}, projectId: null });
    const beat = p.call("heartbeat");
    const [editAnswer, , beatAnswer] = await Promise.all([edit, action, beat]);
    const answered = p.seen.slice(before).filter((m) => "id" in m).map((m) => m.id);
    const ids = [editAnswer, beatAnswer].map((m) => (m as { id: number }).id);
    assert.equal(answered[0], ids[1], "the heartbeat's answer came first");
    const figures = (beatAnswer as { result: Record<string, unknown> }).result;
    const busy = figures.busy as { method: string; forMs: number };
    assert.equal(busy.method, "edit.apply");
    assert.ok(busy.forMs >= 0);
    // initialize was answered in the order: one handled before the edit.
    assert.deepEqual(
      { handled: figures.handled, queued: figures.queued, beside: figures.beside },
      { handled: 1, queued: 1, beside: 0 },
    );
    assert.equal(figures.output, null, "no output runs");
    const after = await p.call("heartbeat");
    const idle = (after as { result: Record<string, unknown> }).result;
    assert.deepEqual([idle.handled, idle.queued, idle.busy], [3, 0, null]);
  } finally {
    await p.close();
  }
});

Deno.test("player answers actions read after a shader edit while its code is checked, and keeps edits in order", async () => {
  const p = await connectInitialized();
  try {
    const before = p.seen.length;
    const code = INVERT;
    const preset = { kind: "effect", name: "Inv", type: "isf", code };
    // One burst: a check in its process takes at least that process's start, so the action read
    // after it is answered first; the edit read after the check waits for it (edits in order).
    const [validate, added, control, renamed] = await Promise.all([
      p.call("edit.apply", {
        projectId: null,
        edits: [{ name: "preset.validate", params: preset }],
      }),
      p.call("edit.apply", { projectId: null, edits: [{ name: "preset.add", params: preset }] }),
      p.call("action.run", {
        name: "SET_CONTROL",
        params: { controlID: "B", value: 0.4 },
        projectId: null,
      }),
      p.call("edit.apply", {
        projectId: null,
        edits: [{ name: "project.rename", params: { name: "After the shader" } }],
      }),
    ]);
    for (const m of [validate, added, control, renamed]) {
      assert.ok("result" in m!, JSON.stringify(m));
    }
    const answers = p.seen.slice(before).filter((m) => "id" in m).map((m) => m.id);
    const [v, a, c, r] = [validate, added, control, renamed].map((m) => (m as { id: number }).id);
    assert.equal(answers[0], c, "the action does not wait for the check");
    assert.deepEqual(answers.slice(1), [v, a, r], "edits in order");
  } finally {
    await p.close();
  }
});

Deno.test("player applies a shader edit once when its key is sent again while its code is checked", async () => {
  const p = await connectInitialized();
  try {
    const add = {
      projectId: null,
      idempotencyKey: "k-shader-1",
      edits: [{
        name: "preset.add",
        params: { kind: "effect", name: "Inv", type: "isf", code: INVERT },
      }],
    };
    const [first, again] = await Promise.all([
      p.call("edit.apply", add),
      p.call("edit.apply", add),
    ]);
    assert.ok("result" in first! && "result" in again!, JSON.stringify([first, again]));
    assert.deepEqual(again.result, first.result);
    const state = await p.call("state.get");
    const presets = (state as { result: { presets: { name: string }[] } }).result.presets;
    assert.equal(presets.filter((x) => x.name === "Inv").length, 1);
  } finally {
    await p.close();
  }
});
