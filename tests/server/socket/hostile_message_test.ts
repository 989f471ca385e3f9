import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";

function nested(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

Deno.test("WebSocket: a message whose id is nested 10,000 deep is answered (id null) and the service lives", async () => {
  const service = await startTestService();
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${service.service.ports.ws}/v1`);
    const texts: string[] = [];
    ws.onmessage = (event) => texts.push(String(event.data));
    await new Promise((resolve) => (ws.onopen = resolve));
    ws.send(`{"type": "ping", "id": ${nested(10_000)}}`);
    ws.send(`{"type": "bogus", "id": {"a": ${nested(10_000)}}}`);
    ws.send(`{"type": "ping", "id": 7}`);
    await until("four messages", () => texts.length >= 4, 60_000); // bounds a hang only
    const answers = texts.slice(1).map((t) => JSON.parse(t));
    assert.equal(answers[0].id, null);
    assert.equal(answers[0].error.code, "INVALID_MESSAGE");
    // The refusal says what an id may be (it said zod's "Invalid input").
    assert.equal(answers[0].error.message, "Invalid id: a string or a number, or none");
    assert.equal(answers[0].error.details.field, "id");
    assert.equal(answers[1].id, null);
    assert.equal(answers[2].id, 7); // an ordinary message is still answered in turn
    ws.close();
    await new Promise((resolve) => (ws.onclose = resolve));
    assert.equal((await service.get("/health")).status, 200);
  } finally {
    await service.stop();
  }
});
