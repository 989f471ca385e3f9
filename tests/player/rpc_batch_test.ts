import assert from "node:assert/strict";
import { connectInitialized } from "../../tools/testing/player_rpc.ts";

/** A player past the handshake, at the version that has `action.batch`. */
const connect = () => connectInitialized("1.11");

const control = (value: number, extra: Record<string, unknown> = {}, controlID = "B") => ({
  name: "SET_CONTROL",
  params: { controlID, value },
  projectId: null,
  ...extra,
});

Deno.test("action.batch runs each action in order with its own outcome or refusal, as action.run would, and writes their updates first", async () => {
  const p = await connect();
  try {
    const refused = { name: "PAUSE_IN", params: {}, projectId: null };
    const malformed = { name: 5, params: {} };
    const alone = await Promise.all([
      p.call("action.run", refused),
      p.call("action.run", malformed),
    ]);
    const before = p.seen.length;
    const batch = await p.call("action.batch", {
      actions: [control(0.1), refused, malformed, control(0.3)],
    });
    const [first, pause, bad, last] = batch.result.outcomes;
    assert.deepEqual(first, { applied: true, message: "Control B = 0.1: 1 Target(s) written" });
    assert.deepEqual(pause, { error: alone[0]!.error }, "the refusal action.run answers");
    assert.deepEqual(bad, { error: alone[1]!.error }, "the check action.run makes");
    assert.equal(bad.error.code, -32602);
    assert.deepEqual(last, { applied: true, message: "Control B = 0.3: 1 Target(s) written" });
    // One notification of the batch's updates, coalesced, then the one answer.
    const after = p.seen.slice(before);
    assert.deepEqual(after.map((m) => "method" in m ? m.method : "answer"), [
      "state.update",
      "answer",
    ]);
    const values = (after[0] as { params: { updates: Array<{ data: Record<string, unknown> }> } })
      .params.updates.filter((u) => u.data.event === "control-changed").map((u) => u.data.value);
    assert.deepEqual(values, [0.3]);
  } finally {
    await p.close();
  }
});

Deno.test("action.batch: an action that writes the Project holds those after it, in the batch and after it", async () => {
  const p = await connect();
  try {
    const before = p.seen.length;
    const direction = { name: "CLIP_DIRECTION", params: { clipID: "c1", direction: "backward" } };
    const [batch, after] = await Promise.all([
      p.call("action.batch", { actions: [direction, control(0.4, {}, "C")] }),
      p.call("action.run", control(0.6)),
    ]);
    assert.deepEqual(batch.result.outcomes.map((o: { applied: boolean }) => o.applied), [
      true,
      true,
    ]);
    assert.ok("result" in after);
    const updates = p.seen.slice(before).flatMap((m) =>
      "method" in m && m.method === "state.update"
        ? (m.params as { updates: Array<{ data: Record<string, unknown> }> }).updates
        : []
    ).flatMap((u) =>
      u.data.event === "clip-changed"
        ? ["clip-changed"]
        : u.data.event === "control-changed"
        ? [`control ${u.data.controlID}`]
        : []
    );
    // Control C was set once the direction was written, B after the batch.
    assert.deepEqual(updates, ["clip-changed", "control C", "control B"]);
    const answers = p.seen.slice(before).filter((m) => "id" in m).map((m) => m.id);
    assert.deepEqual(answers, [batch.id, after.id]);
  } finally {
    await p.close();
  }
});

Deno.test("action.batch: an action's retry key is applied once, in a batch or alone", async () => {
  const p = await connect();
  try {
    const first = await p.call("action.batch", {
      actions: [control(0.2, { idempotencyKey: "k1" }), control(0.5)],
    });
    const again = await p.call("action.batch", {
      actions: [control(0.9, { idempotencyKey: "k1" })],
    });
    const alone = await p.call("action.run", control(0.7, { idempotencyKey: "k1" }));
    assert.deepEqual(again.result.outcomes[0], first.result.outcomes[0]);
    assert.deepEqual(alone.result, first.result.outcomes[0]);
    const state = await p.call("state.get");
    assert.equal(state.result.live.show.controls.B, 0.5, "neither retry ran again");
  } finally {
    await p.close();
  }
});
