import assert from "node:assert/strict";
import { RpcError, RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { LogParams, Method, RequestProgressParams } from "../../../protocol/methods.ts";
import { checkedResult, notificationOf } from "../../../server/player_client/results.ts";
import { fromPlayerError } from "../../../server/core/core.ts";

Deno.test("checkedResult(): a result that fits is kept, without the fields it does not know", () => {
  const located = { path: "/data/a.wav", size: 10, modifiedAt: 1, future: "x" };
  assert.deepEqual(checkedResult(Method.MEDIA_LOCATE, located), {
    path: "/data/a.wav",
    size: 10,
    modifiedAt: 1,
  });
  const info = checkedResult(Method.INITIALIZE, {
    protocolVersion: "1.0",
    player: { name: "desktop", version: "9" },
    capabilities: { virtualClock: false },
  });
  assert.equal(info.capabilities.progress, undefined, "absent progress stays absent (false)");
});

Deno.test("checkedResult(): a result that does not fit is a player error naming the field, answered SERVER_ERROR", () => {
  const cases: Array<[Parameters<typeof checkedResult>[0], unknown, string]> = [
    [Method.MEDIA_LOCATE, { path: 5, size: 1, modifiedAt: 1 }, "result.path"],
    [Method.CAMERA_FRAME, { path: "/a.png" }, "result.capturedAt"],
    [Method.CLOCK_ADVANCE, {}, "result.now"],
    [Method.APPROVAL_REQUEST, { decision: "maybe" }, "result.decision"],
    [Method.INITIALIZE, { protocolVersion: "1.3", player: {}, capabilities: {} }, "result.player"],
    [Method.OUTPUT_FRAME, null, "result"],
  ];
  for (const [method, value, field] of cases) {
    assert.throws(() => checkedResult(method, value), (error: unknown) => {
      assert.ok(error instanceof RpcError);
      assert.equal(error.code, RpcErrorCode.INTERNAL_ERROR);
      assert.match(error.message, new RegExp(`^Invalid result of ${method}: ${field}[.:]`));
      assert.equal((fromPlayerError(error) as { code?: string }).code, "SERVER_ERROR");
      return true;
    });
  }
});

Deno.test("notificationOf(): progress and log notifications that do not fit are dropped", () => {
  assert.deepEqual(notificationOf(RequestProgressParams, { id: 3, progress: 10 }), {
    id: 3,
    progress: 10,
    total: null,
  });
  assert.equal(notificationOf(RequestProgressParams, { id: 3, progress: "10" }), undefined);
  assert.equal(notificationOf(LogParams, { message: "x" }), undefined);
  assert.deepEqual(notificationOf(LogParams, { level: "info", message: "x" }), {
    level: "info",
    message: "x",
  });
});
