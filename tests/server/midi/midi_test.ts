/**
 * The MIDI transport on the real service (a player on a virtual clock), fed
 * by an in-memory endpoint: each row of the default map runs its action (the
 * play state says so), a Project's own map and its scaling, learn, feedback,
 * and a source from the LAN refused until the operator approves it.
 */
import assert from "node:assert/strict";
import type { MidiMessage } from "../../../server/midi/messages.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { runCli } from "../../../server/cli.ts";
import { connectMcp } from "../../../tools/testing/mcp_client.ts";
import { LOCAL_DAW, LOCAL_PAD, MemoryEndpoint, REMOTE_PAD } from "./_memory_endpoint.ts";

const PLAYSTATE = "/api/v1/projects/show/playstate";

// deno-lint-ignore no-explicit-any
async function playstate(svc: TestService): Promise<any> {
  return (await svc.get(PLAYSTATE)).body;
}

// deno-lint-ignore no-explicit-any
async function clipPlay(svc: TestService, clipId: string): Promise<any> {
  return (await playstate(svc)).clips.find((c: { clipID: string }) => c.clipID === clipId);
}

const on = (note: number, velocity: number, channel = 1): MidiMessage => ({
  type: "noteOn",
  channel,
  note,
  velocity,
});
const off = (note: number, channel = 1): MidiMessage => ({
  type: "noteOff",
  channel,
  note,
  velocity: 0,
});
const cc = (controller: number, value: number, channel = 1): MidiMessage => ({
  type: "controlChange",
  channel,
  controller,
  value,
});

async function edit(svc: TestService, name: string, params: unknown) {
  const answer = await svc.post("/api/v1/edit", { name, params, projectID: "show" });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

Deno.test("MIDI: the default map's rows run their actions; a Project's own map and learning", async (t) => {
  const svc = await startTestService();
  const endpoint = new MemoryEndpoint();
  svc.service.midi.attach(endpoint);
  try {
    await t.step("a note on plays the active Song's Clip by index with its velocity", async () => {
      endpoint.deliver([on(36, 64)]); // note 36 (C1): index 0 of Song s1, Clip c1
      await until("c1 plays", async () => (await clipPlay(svc, "c1"))?.state === "playing");
      assert.equal((await clipPlay(svc, "c1")).velocity, 64);
    });
    await t.step("note off releases a Gate Clip (and only a Gate Clip)", async () => {
      endpoint.deliver([on(37, 100)]); // index 1: c2, Gate
      await until("c2 held", async () => (await clipPlay(svc, "c2"))?.held === true);
      endpoint.deliver([off(36), off(37)]);
      await until("c2 released", async () => (await clipPlay(svc, "c2"))?.held !== true);
      assert.equal((await clipPlay(svc, "c1"))?.state, "playing", "c1 is no Gate Clip");
    });
    await t.step(
      "CCs drive Controls: 7-bit, then 14-bit pairs (MSB CC n, LSB CC n+32)",
      async () => {
        endpoint.deliver([cc(1, 127), cc(2, 64), cc(34, 0)]);
        await until("A and B", async () => {
          const controls = (await playstate(svc)).controls;
          return controls.A === 1 && controls.B !== undefined && controls.B !== 0;
        });
        assert.equal((await playstate(svc)).controls.B, 8192 / 16383);
        endpoint.deliver([cc(2, 127), cc(34, 127)]); // paired now: the MSB moves, its LSB refines
        await until("B full", async () => (await playstate(svc)).controls.B === 1);
      },
    );
    await t.step(
      "1,000 CCs over 10 Controls in one burst: each Control ends at its last value",
      async () => {
        const burst = Array.from({ length: 1000 }, (_, i) => cc(11 + (i % 10), (i * 7) % 128));
        endpoint.deliver(burst);
        const last = new Map(
          burst.map((m) => m.type === "controlChange" ? [m.controller, m.value] : [0, 0]),
        );
        await until("every last value", async () => {
          const controls = (await playstate(svc)).controls;
          return [...last].every(([n, v]) => controls[String.fromCharCode(64 + n)] === v / 127);
        });
      },
    );
    await t.step("program change selects the Song by pgmId (1-based by default)", async () => {
      endpoint.deliver([{ type: "programChange", channel: 1, program: 19 }]); // pgmId 20
      await until("s2", async () => (await playstate(svc)).activeSongID === "s2");
      await edit(svc, "project.set_midi", { programBase: 0 });
      endpoint.deliver([{ type: "programChange", channel: 1, program: 30 }]); // pgmId 30
      await until("s3", async () => (await playstate(svc)).activeSongID === "s3");
    });
    await t.step("navigation notes and transport messages", async () => {
      endpoint.deliver([on(125, 100)]); // previous Song
      await until("back to s2", async () => (await playstate(svc)).activeSongID === "s2");
      endpoint.deliver([{ type: "start" }]);
      await until("playing", async () => (await playstate(svc)).song?.state === "playing");
      endpoint.deliver([{ type: "stop" }]);
      await until("stopped", async () => (await playstate(svc)).song?.state !== "playing");
      endpoint.deliver([on(127, 100)]); // panic: every Clip stops
      await until("all stopped", async () => (await playstate(svc)).clips.length === 0);
    });
    await t.step(
      "a Project's own binding wins, scaled; without the default map, notes do nothing",
      async () => {
        await edit(svc, "project.set_midi", {
          useDefault: false,
          bindings: [
            {
              kind: "controlChange",
              number: 100,
              action: "SET_CONTROL",
              params: ["C"],
              min: 0.2,
              max: 0.4,
            },
            { channel: 2, kind: "noteOn", number: 60, action: "TRIGGER_CLIP_IN", params: ["c7"] },
          ],
        });
        endpoint.deliver([cc(100, 127, 5), on(36, 90)]);
        await until("C = 0.4", async () => (await playstate(svc)).controls.C === 0.4);
        endpoint.deliver([on(60, 50, 2)]);
        await until("c7 plays", async () => (await clipPlay(svc, "c7"))?.state === "playing");
        assert.equal((await clipPlay(svc, "c7")).velocity, 50);
        assert.equal(await clipPlay(svc, "c1"), undefined, "note 36 played nothing");
      },
    );
    await t.step("a binding of no action of the catalog is refused by name", async () => {
      const answer = await svc.post("/api/v1/edit", {
        name: "project.set_midi",
        params: { bindings: [{ kind: "start", action: "PLAY_IT" }] },
        projectID: "show",
      });
      assert.equal(answer.body.error?.code, "EDIT_REFUSED", JSON.stringify(answer.body));
      assert.match(answer.body.error.message, /bindings\.0\.action: no action "PLAY_IT"/);
    });
    await t.step("learn: the next message is bound, the edit applied and undoable", async () => {
      const learning = svc.post("/api/v1/midi/learn", { action: "SET_CONTROL", params: ["D"] });
      await until("learning", async () => (await svc.get("/api/v1/midi")).body.learning !== null);
      endpoint.deliver([{ type: "clock" }, cc(21, 30, 3)]);
      const answer = await learning;
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.learned, true);
      assert.deepEqual(
        { ...answer.body.binding, params: answer.body.binding.params },
        {
          channel: 3,
          kind: "controlChange",
          number: 21,
          action: "SET_CONTROL",
          params: ["D"],
          min: 0,
          max: 1,
        },
      );
      assert.equal(answer.body.message.type, "controlChange");
      const status = (await svc.get("/api/v1/midi")).body;
      assert.equal(status.map.bindings.length, 3);
      endpoint.deliver([cc(21, 127, 3)]);
      await until("D = 1", async () => (await playstate(svc)).controls.D === 1);
      await edit(svc, "project.undo", {});
      const undone = (await svc.get("/api/v1/midi")).body;
      assert.equal(undone.map.bindings.length, 2, "the learned binding is undone");
    });
    await t.step("a learn the client cancels answers learned: false", async () => {
      const learning = svc.post("/api/v1/midi/learn", { action: "PLAY_IN" });
      await until("learning", async () => (await svc.get("/api/v1/midi")).body.learning !== null);
      const cancel = await svc.post("/api/v1/midi/learn/cancel", {});
      assert.deepEqual(cancel.body, { cancelled: true });
      assert.deepEqual((await learning).body, { learned: false, reason: "cancelled" });
    });
    await t.step(
      "a learn of an action the catalog does not have is refused at once, naming it",
      async () => {
        // It waited for a message for 10 minutes, then bound nothing that could run.
        const refused = await svc.post("/api/v1/midi/learn", { action: "NOPE_XYZ" });
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
        assert.equal(refused.body.error.details.field, "action");
        assert.match(refused.body.error.message, /NOPE_XYZ.*not an action of the catalog/);
        assert.equal((await svc.get("/api/v1/midi")).body.learning, null, "nothing waits");
      },
    );
    await t.step(
      "a learn whose params the action refuses, with or without a control change's value, is refused at once",
      async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ action: "SET_CONTROL", params: ["AA"] }, "params[0]"],
          [{ action: "PLAY_CLIP_IN", params: ["c1", "c2", "c3"] }, "params"],
          [{ action: "SET_CONTROL", params: ["A"], value: "trigger" }, "params"],
        ];
        for (const [body, field] of cases) {
          const refused = await svc.post("/api/v1/midi/learn", body);
          assert.equal(refused.status, 400, JSON.stringify(refused.body));
          assert.equal(refused.body.error.code, "INVALID_MESSAGE");
          assert.ok(refused.body.error.details.field.startsWith(field), refused.body.error.message);
          assert.equal((await svc.get("/api/v1/midi")).body.learning, null, "nothing waits");
        }
      },
    );
  } finally {
    await svc.stop();
  }
});

Deno.test("MIDI: feedback lights a Clip's pad when it starts, and all pads when a participant joins", async () => {
  const svc = await startTestService({ midiFeedback: ["all"] });
  const endpoint = new MemoryEndpoint();
  svc.service.midi.attach(endpoint);
  try {
    endpoint.join(LOCAL_DAW);
    const played = await svc.post("/api/v1/action", { name: "PLAY_CLIP_IN", params: ["c3"] });
    assert.equal(played.status, 200, JSON.stringify(played.body));
    // c3 is index 2 of s1: note 38 on channel 1, green (21) in the Launchpad scheme.
    await until(
      "c3's pad green",
      () =>
        endpoint.receivedBy(LOCAL_DAW).some((m) =>
          m.type === "noteOn" && m.note === 38 && m.velocity === 21
        ),
    );
    const before = endpoint.receivedBy(LOCAL_DAW).length;
    endpoint.join(LOCAL_PAD);
    const pads = endpoint.receivedBy(LOCAL_PAD).filter((m) => m.type === "noteOn").map((m) =>
      m.type === "noteOn" ? [m.note, m.velocity] : []
    );
    assert.deepEqual(pads, [[36, 9], [37, 9], [38, 21], [39, 9]]);
    assert.equal(
      endpoint.receivedBy(LOCAL_DAW).length,
      before,
      "the full state goes to who joined",
    );
    assert.equal((await svc.get("/api/v1/info")).body.clients.midi, 2);
  } finally {
    await svc.stop();
  }
});

Deno.test("MIDI: feedback goes only to the participants midiFeedback names; by default to none", async (t) => {
  await t.step("default: none", async () => {
    const svc = await startTestService();
    const endpoint = new MemoryEndpoint();
    svc.service.midi.attach(endpoint);
    try {
      endpoint.join(LOCAL_DAW);
      endpoint.join(LOCAL_PAD);
      assert.deepEqual(endpoint.sent, [], "a join sends nothing");
    } finally {
      await svc.stop();
    }
  });
  await t.step("the pad by name: the DAW beside it gets nothing", async () => {
    const svc = await startTestService({ midiFeedback: ["launchpad x"] });
    const endpoint = new MemoryEndpoint();
    svc.service.midi.attach(endpoint);
    try {
      endpoint.join(LOCAL_DAW);
      endpoint.join(LOCAL_PAD);
      assert.ok(endpoint.receivedBy(LOCAL_PAD).length > 0, "the pad's full state");
      await svc.post("/api/v1/action", { name: "PLAY_CLIP_IN", params: ["c3"] });
      await until(
        "c3's pad green",
        () =>
          endpoint.receivedBy(LOCAL_PAD).some((m) =>
            m.type === "noteOn" && m.note === 38 && m.velocity === 21
          ),
      );
      assert.deepEqual(endpoint.receivedBy(LOCAL_DAW), [], "no notes or CCs into the DAW");
    } finally {
      await svc.stop();
    }
  });
});

Deno.test("MIDI: a source from the LAN is refused and listed, then approved as a device, then revoked", async () => {
  const svc = await startTestService({ midiFeedback: ["Pad", LOCAL_DAW.address] });
  const endpoint = new MemoryEndpoint();
  svc.service.midi.attach(endpoint);
  /** Whether `source` was sent Control A's value `value` (CC 1). */
  const hasA = (source: typeof LOCAL_DAW, value: number) =>
    endpoint.receivedBy(source).some((m) =>
      m.type === "controlChange" && m.controller === 1 && m.value === value
    );
  try {
    endpoint.join(REMOTE_PAD);
    endpoint.join(LOCAL_DAW);
    assert.deepEqual(endpoint.receivedBy(REMOTE_PAD), [], "no feedback before approval");
    endpoint.deliver([cc(1, 127)], REMOTE_PAD);
    const status = (await svc.get("/api/v1/midi")).body;
    assert.equal(status.counts.refused, 1);
    assert.equal(status.pending.length, 1);
    const [request] = status.pending;
    assert.equal(request.address, REMOTE_PAD.address);
    assert.equal(request.name, "Pad");
    // The operator lists and approves it with `cueport midi`.
    const lines: string[] = [];
    const target = ["--data-dir", svc.dataDir];
    assert.equal(await runCli("midi", target, (l) => lines.push(l)), 0, lines.join("\n"));
    assert.match(lines.join("\n"), new RegExp(`waiting +${request.requestId} +Pad +from 192`));
    const approve = ["approve", request.requestId, ...target];
    assert.equal(await runCli("midi", approve, (l) => lines.push(l)), 0, lines.join("\n"));
    const deviceId = /as (\S+)$/.exec(lines.at(-1)!)![1];
    const devices = (await svc.get("/api/v1/devices")).body.devices;
    const device = devices.find((d: { deviceId: string }) => d.deviceId === deviceId);
    assert.equal(device.origin, "midi");
    assert.equal(device.address, REMOTE_PAD.address);
    endpoint.deliver([cc(1, 127)], REMOTE_PAD);
    await until("A = 1", async () => (await playstate(svc)).controls.A === 1);
    await until("the approved pad's feedback", () => hasA(REMOTE_PAD, 127));
    const revoked = await fetch(`${svc.base}/api/v1/devices/${device.deviceId}`, {
      method: "DELETE",
    });
    await revoked.body?.cancel();
    assert.equal(revoked.status, 200);
    endpoint.deliver([cc(1, 0)], REMOTE_PAD);
    const after = (await svc.get("/api/v1/midi")).body;
    assert.equal(after.counts.refused, 2);
    assert.equal((await playstate(svc)).controls.A, 1);
    await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["A", 0.5] });
    await until("the DAW's feedback of A = 0.5", () => hasA(LOCAL_DAW, 64));
    assert.equal(hasA(REMOTE_PAD, 64), false, "no feedback after revoke");
    const unknown = await svc.post("/api/v1/midi/approvals/midi-nope", {});
    assert.equal(unknown.body.error.code, "NOT_FOUND");
  } finally {
    await svc.stop();
  }
});

Deno.test("MIDI over MCP: app_midi_learn binds the next message; cancelling the call ends the learn", async () => {
  const svc = await startTestService();
  const endpoint = new MemoryEndpoint();
  svc.service.midi.attach(endpoint);
  const mcp = await connectMcp(svc.base);
  try {
    const learning = mcp.call("app_midi_learn", { action: "NEXT_SONG_IN" });
    await until("learning", async () => (await svc.get("/api/v1/midi")).body.learning !== null);
    endpoint.deliver([{ type: "programChange", channel: 4, program: 9 }]);
    const answer = await learning;
    assert.equal(answer.isError, undefined, answer.content[0]?.text ?? "");
    const learned = answer.structuredContent as { learned: boolean; binding: { kind: string } };
    assert.equal(learned.learned, true);
    assert.equal(learned.binding.kind, "programChange");
    const status = await mcp.call("app_get_midi");
    const map = (status.structuredContent as { map: { bindings: unknown[] } }).map;
    assert.equal(map.bindings.length, 1);

    const abort = new AbortController();
    const cancelled = mcp.client.callTool(
      { name: "app_midi_learn", arguments: { action: "PLAY_IN" } },
      undefined,
      {
        signal: abort.signal,
      },
    ).catch(() => "cancelled");
    await until("learning", async () => (await svc.get("/api/v1/midi")).body.learning !== null);
    abort.abort();
    assert.equal(await cancelled, "cancelled");
    await until("not learning", async () => (await svc.get("/api/v1/midi")).body.learning === null);
  } finally {
    await mcp.close();
    await svc.stop();
  }
});
