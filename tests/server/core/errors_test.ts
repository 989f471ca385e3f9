import assert from "node:assert/strict";
import { CueportError, errorBody, withWireField } from "../../../server/core/mod.ts";
import { unexpectedOf } from "../../../server/core/errors.ts";
import { fromPlayerError } from "../../../server/core/player_errors.ts";
import { RpcError, RpcErrorCode } from "../../../protocol/jsonrpc.ts";

Deno.test("errorBody() is SERVER_ERROR for anything but a CueportError, without its text", () => {
  for (const thrown of [new TypeError("secret /home/key"), "secret", null, { code: "NOT_FOUND" }]) {
    assert.deepEqual(errorBody(thrown), { code: "SERVER_ERROR", message: "Internal server error" });
  }
});

Deno.test("errorBody() keeps details that serialize and leaves out those that cannot", () => {
  const found = new CueportError("NOT_FOUND", 'Song "x" does not exist', { field: "songID" });
  assert.deepEqual(errorBody(found), {
    code: "NOT_FOUND",
    message: 'Song "x" does not exist',
    details: { field: "songID" },
  });
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  for (const details of [{ value: 1n }, cycle]) {
    assert.deepEqual(errorBody(new CueportError("INVALID_MESSAGE", "Invalid x", details)), {
      code: "INVALID_MESSAGE",
      message: "Invalid x",
    });
  }
  assert.deepEqual(new CueportError("INVALID_MESSAGE", "Invalid x", { value: 1n }).toJSON(), {
    error: { code: "INVALID_MESSAGE", message: "Invalid x" },
  });
});

Deno.test("withWireField() names the field as the wire does, in the message and the details", () => {
  const error = new CueportError("INVALID_MESSAGE", "Invalid otp: expected 6 digits", {
    field: "otp",
    value: "12",
  });
  const renamed = withWireField(
    error,
    (f) => f === "otp" ? { field: "args[0]", label: "args[0] (otp)" } : undefined,
  ) as CueportError;
  assert.equal(renamed.message, "Invalid args[0] (otp): expected 6 digits");
  assert.deepEqual(renamed.details, { field: "args[0]", value: "12" });
  assert.equal(withWireField(error, () => undefined), error);
  const plain = new Error("x");
  assert.equal(withWireField(plain, () => ({ field: "y" })), plain);
});

Deno.test("fromPlayerError() maps the player's codes, an edit's refusal and shader problems", () => {
  const rpc = (code: number, data?: unknown) => new RpcError(code, "Nope", data);
  assert.equal(fromPlayerError(rpc(RpcErrorCode.ACTION_REFUSED)).code, "ACTION_FAILED");
  const edit = { edit: { isBatch: false } };
  assert.equal(fromPlayerError(rpc(RpcErrorCode.ACTION_REFUSED), edit).code, "EDIT_REFUSED");
  assert.equal(fromPlayerError(rpc(RpcErrorCode.NOT_ENTITLED)).code, "API_ACCESS_DENIED");
  assert.equal(fromPlayerError(rpc(RpcErrorCode.METHOD_NOT_FOUND)).code, "UNAVAILABLE");
  assert.equal(fromPlayerError(rpc(RpcErrorCode.CORRUPT_MEDIA), edit).code, "CORRUPT_MEDIA");
  // output.frame's -32005 is "no output runs" (docs/player-protocol.md): a state the client can
  // change (the output setting), 409; any other request's -32005 stays 503 UNAVAILABLE.
  const frame = fromPlayerError(rpc(RpcErrorCode.UNAVAILABLE), { outputFrame: true });
  assert.deepEqual([frame.code, frame.status, frame.message], ["NO_OUTPUT", 409, "Nope"]);
  assert.equal(fromPlayerError(rpc(RpcErrorCode.UNAVAILABLE)).code, "UNAVAILABLE");
  const older = fromPlayerError(rpc(RpcErrorCode.METHOD_NOT_FOUND), { outputFrame: true });
  assert.equal(older.code, "UNAVAILABLE");
  const shader = fromPlayerError(
    new RpcError(RpcErrorCode.INVALID_CODE, "Invalid params.code: 1 problem", {
      field: "params.code",
      edit: 2,
      problems: [{ line: 1, column: 1, message: "x" }],
    }),
    { edit: { isBatch: true } },
  );
  assert.equal(shader.code, "INVALID_SHADER");
  assert.equal(shader.message, "Invalid edits.2.params.code: 1 problem");
  assert.equal(shader.details?.field, "edits.2.params.code");
});

Deno.test("fromPlayerError(): a player's fault is SERVER_ERROR without its text, which only the log gets", () => {
  const secret = "Player error: No such file (os error 2): readfile '/home/show/.cueport/x.json'";
  for (const fault of [new RpcError(RpcErrorCode.INTERNAL_ERROR, secret), new TypeError(secret)]) {
    const answer = fromPlayerError(fault);
    assert.deepEqual(errorBody(answer), { code: "SERVER_ERROR", message: "Internal server error" });
    assert.ok(unexpectedOf(answer)?.includes(secret), String(unexpectedOf(answer)));
  }
  // A failure the player reports on purpose (a full disk under an import) keeps its message.
  const full = new RpcError(RpcErrorCode.INTERNAL_ERROR, 'Cannot import "a.mov": disk full', {
    isDeliberate: true,
  });
  assert.deepEqual(errorBody(fromPlayerError(full)), {
    code: "SERVER_ERROR",
    message: 'Cannot import "a.mov": disk full',
  });
  assert.equal(unexpectedOf(fromPlayerError(full)), null);
  assert.equal(unexpectedOf(fromPlayerError(new RpcError(RpcErrorCode.NOT_FOUND, "No x"))), null);
});

Deno.test("A full disk is 507 DISK_FULL: the player's -32007 with its message, a write of the service's own", () => {
  const message = "The disk of the data dir /srv/cueport is full: free space on it";
  const fromPlayer = fromPlayerError(new RpcError(RpcErrorCode.DISK_FULL, message));
  assert.equal(fromPlayer.code, "DISK_FULL");
  assert.equal(fromPlayer.status, 507);
  assert.equal(fromPlayer.message, message);
  const enospc = Object.assign(new Error("No space left on device (os error 28)"), {
    code: "ENOSPC",
  });
  assert.deepEqual(errorBody(enospc), {
    code: "DISK_FULL",
    message: "The disk of the data dir is full: free space on it (old recordings in recordings/, " +
      "unused media) and try again",
  });
});
