/**
 * One serialization fallback on every wire: whatever an operation throws
 * that is not a `CueportError` goes out as the documented SERVER_ERROR
 * "Internal server error" (HTTP 500, the WebSocket's error, an OSC reply,
 * MCP's tool result and JSON-RPC error), and details that cannot be
 * serialized are left out without losing the error, with nothing of the
 * thrown value's text or stack on any wire.
 */
import assert from "node:assert/strict";
import { CueportError } from "../../server/core/mod.ts";
import { fromPlayerError } from "../../server/core/player_errors.ts";
import { RpcError, RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { connectMcp } from "../../tools/testing/mcp_client.ts";
import { startTestService, type TestService } from "../../tools/testing/service.ts";
import { TestSocket } from "../../tools/testing/ws_client.ts";
import { OscPeer } from "./osc/_peer.ts";

const SECRET = "secret at /home/show/.cueport/key";

/** What every wire answers for the `appState` query, raw text included (to look for leaks). */
async function everyWire(svc: TestService) {
  const http = await fetch(`${svc.base}/api/v1/app-state`);
  const httpText = await http.text();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  const osc = OscPeer.open(svc.service.ports.osc);
  const mcp = await connectMcp(svc.base);
  try {
    await ws.auth();
    const wsAnswer = await ws.request({ type: "query", query: "appState" });
    const oscReply = await osc.ask("/get/appState");
    const tool = await mcp.call("app_get_app_state");
    const resource = await mcp.client.readResource({ uri: "app://projects/show" })
      .then(() => null, (error) => error);
    return {
      http: { status: http.status, body: JSON.parse(httpText), text: httpText },
      ws: wsAnswer,
      osc: oscReply,
      tool: JSON.parse(tool.content[0]!.text!),
      isToolError: tool.isError,
      resource: { code: resource?.code, data: resource?.data, message: resource?.message },
    };
  } finally {
    await ws.close();
    await osc.close();
    await mcp.close();
  }
}

/** What the service logs while `run` runs (its log goes to stderr, one line per event). */
async function logOf<T>(run: () => Promise<T>): Promise<{ result: T; lines: string }> {
  const stderr = Deno.stderr;
  const write = stderr.writeSync;
  let lines = "";
  stderr.writeSync = (bytes: Uint8Array) => {
    lines += new TextDecoder().decode(bytes);
    return bytes.length;
  };
  try {
    return { result: await run(), lines };
  } finally {
    stderr.writeSync = write;
  }
}

/**
 * `fault` thrown by the operations every wire runs: SERVER_ERROR on each,
 * leaking nothing, and logged by each as `<name>: <SECRET>` at level error
 * (the service logs nothing less there, so a fault logged lower is missed).
 */
async function faultOnEveryWire(fault: unknown, name: string) {
  const svc = await startTestService({ logLevel: "error" });
  const queries = svc.service.core.queries;
  const fail = () => {
    throw fault;
  };
  Object.assign(queries, { appState: fail, project: fail });
  try {
    const { result: seen, lines } = await logOf(() => everyWire(svc));
    // Each wire logs the fault it answered (the log is the operator's, not the client's).
    for (
      const where of [
        `HTTP GET /api/v1/app-state: ${name}: ${SECRET}`,
        "WebSocket query of client c",
        `OSC /get/appState: ${name}: ${SECRET}`,
        `MCP app_get_app_state: ${name}: ${SECRET}`,
        `MCP resources: ${name}: ${SECRET}`,
      ]
    ) assert.ok(lines.includes(where), `${where} in the log:\n${lines}`);
    assert.equal(lines.split(SECRET).length - 1, 5, lines);
    // OSCQuery (HTTP's form): its namespace is built from the read model.
    Object.assign(svc.service.core.model, { project: fail });
    const oscQuery = await logOf(() => fetch(`http://127.0.0.1:${svc.service.ports.oscQuery}/`));
    const text = await oscQuery.result.text();
    assert.equal(oscQuery.result.status, 500);
    assert.deepEqual(JSON.parse(text), {
      error: { code: "SERVER_ERROR", message: "Internal server error" },
    });
    assert.ok(oscQuery.lines.includes(`OSCQuery: ${name}: ${SECRET}`), oscQuery.lines);
    const fallback = { code: "SERVER_ERROR", message: "Internal server error" };
    assert.equal(seen.http.status, 500);
    assert.deepEqual(seen.http.body, { error: fallback });
    assert.deepEqual(seen.ws, { type: "error", id: "r2", error: fallback });
    assert.deepEqual(seen.osc, { address: "/get/appState", status: "error", data: fallback });
    assert.equal(seen.isToolError, true);
    assert.deepEqual(seen.tool, {
      error: { ...fallback, hint: seen.tool.error.hint }, // the hint is MCP's own (docs/mcp.md)
    });
    assert.equal(seen.resource.code, -32603);
    assert.deepEqual(seen.resource.data, fallback);
    assert.ok(!JSON.stringify(seen).includes("secret"), JSON.stringify(seen));
    assert.ok(!JSON.stringify(seen).includes("TypeError"), JSON.stringify(seen));
  } finally {
    await svc.stop();
  }
}

Deno.test("a non-CueportError thrown in an operation is SERVER_ERROR on every wire, leaking nothing, and is logged with its stack", async () => {
  await faultOnEveryWire(new TypeError(SECRET), "TypeError");
});

Deno.test("a player's fault (its own text, paths of the show machine) is SERVER_ERROR on every wire and logged", async () => {
  const fault = new RpcError(RpcErrorCode.INTERNAL_ERROR, `Player error: ${SECRET}`);
  await faultOnEveryWire(fromPlayerError(fault), "RpcError: Player error");
});

Deno.test("details that cannot be serialized are left out on every wire, the code and message kept", async () => {
  const svc = await startTestService({ logLevel: "error" });
  const refuse = () => {
    // JSON.stringify throws on a BigInt, as it did (RangeError) on a value nested 10,000 deep.
    throw new CueportError("INVALID_MESSAGE", "Invalid name: must be a string", { value: 1n });
  };
  Object.assign(svc.service.core.queries, { appState: refuse, project: refuse });
  try {
    const { result: seen, lines } = await logOf(() => everyWire(svc));
    // A CueportError is an answer, not a fault: no wire logs it.
    assert.ok(!lines.includes("Invalid name"), lines);
    const body = { code: "INVALID_MESSAGE", message: "Invalid name: must be a string" };
    assert.equal(seen.http.status, 400);
    assert.deepEqual(seen.http.body, { error: body });
    assert.deepEqual(seen.ws.error, body);
    assert.deepEqual(seen.osc.data, body);
    assert.deepEqual(seen.tool, { error: { ...body, hint: seen.tool.error.hint } });
    assert.equal(seen.resource.code, -32602);
    assert.deepEqual(seen.resource.data, body);
  } finally {
    await svc.stop();
  }
});

Deno.test("OSC answers outside the table (/subscribe) log their fault at error too", async () => {
  const svc = await startTestService({ logLevel: "error" });
  const osc = OscPeer.open(svc.service.ports.osc);
  // The current values sent with the lease read the live state: a fault there.
  Object.assign(svc.service.core.model, {
    live: () => {
      throw new TypeError(SECRET);
    },
  });
  try {
    const { result, lines } = await logOf(async () => {
      await osc.send("/subscribe");
      const answers = [await osc.reply("/subscribe"), await osc.reply("/subscribe")];
      return answers.find((a) => a.status === "error");
    });
    assert.deepEqual(result?.data, { code: "SERVER_ERROR", message: "Internal server error" });
    assert.ok(lines.includes(`ERROR OSC /subscribe: TypeError: ${SECRET}`), lines);
  } finally {
    await osc.close();
    await svc.stop();
  }
});

Deno.test("an operation throwing a falsy value is a failure on the WebSocket, not a success", async () => {
  const svc = await startTestService({ logLevel: "error" });
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.auth();
    for (const thrown of [undefined, 0, ""]) {
      Object.assign(svc.service.core.queries, {
        appState: () => {
          throw thrown;
        },
      });
      const { result: answer } = await logOf(() =>
        ws.request({ type: "query", query: "appState" })
      );
      assert.equal(answer.type, "error", String(thrown));
      assert.deepEqual(answer.error, { code: "SERVER_ERROR", message: "Internal server error" });
    }
  } finally {
    await ws.close();
    await svc.stop();
  }
});
