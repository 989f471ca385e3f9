import assert from "node:assert/strict";
import { type AnyOperation, OPERATIONS, transportsOf } from "../../server/core/mod.ts";
import { allRoutes } from "../../server/routes/mod.ts";
import { socketOperations } from "../../server/socket/client.ts";
import { NOT_CARRIED, ToolTable } from "../../server/mcp/tools.ts";
import { startTestService } from "../../tools/testing/service.ts";
import { TestSocket } from "../../tools/testing/ws_client.ts";
import { ADDRESSES, OSCQUERY_OPERATION, OWN_ADDRESSES } from "../../server/osc/mod.ts";
import { V5_CARRIED_AS, V5_OWN_OPERATIONS, v5Routes } from "../../server/legacy/mod.ts";
import { bindingCall } from "../../server/midi/map.ts";
import { ACTIONS } from "../../protocol/actions.ts";
import { MidiBinding } from "../../protocol/midi.ts";

/**
 * The 5.0.0 interface (docs/compat.md) carries what 5.0.0 had: every query of
 * 5.0.0 as a route without /v1 (the single Clip through `clips`), actions and
 * edits, pairing, health and the pictures; its WebSocket carries actions only.
 */
const v5 = v5Routes({
  version: "x",
  ports: () => ({ http: 0, ws: 0 }),
  successor: () => ({ http: 0, ws: 0 }),
});
const routes = allRoutes({
  version: "x",
  startedAt: 0,
  ports: () => ({ http: 0, ws: 0, osc: 0 }),
  clients: () => ({ websocket: 0, mcp: 0, osc: 0 }),
});
const socket = socketOperations();
const socketQueries = socket.query as ReadonlyMap<string, AnyOperation>;
const mcpReached = new ToolTable({ maxUploadBytes: 1 }).reached();

/** Whether the 5.0.0 HTTP port reaches the operation (through its own operation that carries it). */
function onV5Http(operation: AnyOperation): boolean {
  return v5.some((r) => (V5_CARRIED_AS[r.operation.name] ?? r.operation.name) === operation.name);
}

/** What the 5.0.0 WebSocket reaches: its message types, by the operation each runs. */
const V5_SOCKET = new Set(["connect", "action", "ping"]);

/** On MCP: a tool runs it, or the tool list of the spec leaves it out on purpose (`NOT_CARRIED`). */
function onMcp(operation: AnyOperation): boolean {
  return mcpReached.has(operation) || operation.name in NOT_CARRIED;
}

function onSocket(operation: AnyOperation): boolean {
  return Object.values(socket).some((entry) =>
    entry === operation || (entry instanceof Map && entry.get(operation.name) === operation)
  );
}

Deno.test("every operation is reachable on every transport that should carry it", () => {
  const missing: string[] = [];
  for (const operation of OPERATIONS) {
    for (const transport of transportsOf(operation)) {
      const isReached = transport === "http"
        ? routes.some((r) => r.operation === operation)
        : transport === "osc"
        ? ADDRESSES.some((a) => a.operation === operation) ||
          Object.values(OWN_ADDRESSES).includes(operation)
        : transport === "oscquery"
        ? operation === OSCQUERY_OPERATION
        : transport === "websocket"
        ? onSocket(operation)
        : transport === "http-5.0.0"
        ? onV5Http(operation)
        : transport === "websocket-5.0.0"
        ? V5_SOCKET.has(operation.name)
        : onMcp(operation);
      if (!isReached) missing.push(`${operation.name} (${operation.kind}) on ${transport}`);
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test("every MCP tool runs operations of the catalog, and what MCP leaves out is not run", () => {
  for (const operation of mcpReached) {
    assert.ok(OPERATIONS.includes(operation), operation.name);
    assert.ok(transportsOf(operation).includes("mcp"), operation.name);
  }
  for (const name of Object.keys(NOT_CARRIED)) {
    assert.ok(OPERATIONS.some((o) => o.name === name), `${name} exists`);
    assert.ok(![...mcpReached].some((o) => o.name === name), `${name} is not carried`);
  }
});

Deno.test("every query operation is a GET route and a WebSocket query of the same name", () => {
  for (const operation of OPERATIONS.filter((o) => o.kind === "query")) {
    assert.ok(routes.some((r) => r.operation === operation && r.method === "GET"), operation.name);
    assert.equal(socketQueries.get(operation.name), operation, operation.name);
  }
});

Deno.test("every route and every WebSocket message points at an operation of the catalog", () => {
  const names = new Set(OPERATIONS.map((o) => o.name));
  assert.equal(names.size, OPERATIONS.length, "operation names are unique");
  for (const route of routes) {
    const operation = route.operation;
    assert.ok(OPERATIONS.includes(operation), `${route.label} -> ${operation.name}`);
    // What the route says comes from the operation: nothing decided twice (a description's
    // exact shape is its route's, as each interface describes itself).
    assert.equal(route.summary, operation.summary);
    assert.equal(route.auth, operation.scope !== null);
    if (!route.describe) assert.equal(route.response, operation.output);
  }
  for (const address of ADDRESSES) {
    assert.ok(
      OPERATIONS.includes(address.operation),
      `${address.path} -> ${address.operation.name}`,
    );
  }
  for (const [type, entry] of Object.entries(socket)) {
    const ops = entry instanceof Map ? [...entry.values()] : entry ? [entry as AnyOperation] : [];
    for (const operation of ops) {
      assert.ok(
        OPERATIONS.includes(operation) || operation.name === "full",
        `${type} -> ${operation.name}`,
      );
    }
  }
});

Deno.test("every WebSocket query name is answered through the catalog, params checked strictly", async () => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    for (const name of socketQueries.keys()) {
      const answer = await ws.request({ type: "query", query: name, params: {} });
      // Some need params (song, clips, preset): refused naming a param, never the query name.
      assert.notEqual(answer.error?.details?.field, "query", name);
      const extra = await ws.request({ type: "query", query: name, params: { nope: 1 } });
      assert.equal(extra.error?.code, "INVALID_MESSAGE", name);
    }
    const unknown = await ws.request({ type: "query", query: "everything" });
    assert.equal(unknown.error.details.field, "query");
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("the 5.0.0 routes reach the operations 5.0.0 had, from the catalog, and no other", () => {
  // Which operations 5.0.0 had is the catalog's fact (`since`, `transportsOf`).
  const isV5 = (o: AnyOperation) => transportsOf(o).includes("http-5.0.0");
  for (const operation of OPERATIONS.filter(isV5)) {
    assert.ok(onV5Http(operation), `${operation.name} on 5.0.0`);
  }
  // An operation of its own that takes a body in the 5.0.0 form has the policy of the one it carries.
  for (const [own, name] of Object.entries(V5_CARRIED_AS)) {
    const operation = v5.find((r) => r.operation.name === own)!.operation;
    const of = OPERATIONS.find((o) => o.name === name)!;
    assert.deepEqual(
      [operation.scope, operation.needsApiAccess, operation.isLocalOnly, operation.isIdempotent],
      [of.scope, of.needsApiAccess, of.isLocalOnly, of.isIdempotent],
      own,
    );
  }
  for (const route of v5) {
    const operation = route.operation;
    const isOwn = V5_OWN_OPERATIONS.includes(operation.name);
    assert.ok(isOwn || OPERATIONS.includes(operation), `${route.label} -> ${operation.name}`);
    const carried = OPERATIONS.find((o) =>
      o.name === (V5_CARRIED_AS[operation.name] ?? operation.name)
    );
    assert.ok(isV5(carried!), `${route.label} is 6.0 only`);
    assert.ok(!route.path.startsWith("/api/v1/") || /^\/api\/v1\/(action|edit)$/.test(route.path));
    // Its operation's words, but for the single Clip: one of the `clips` answer, said as itself.
    const isSingleClip = route.path.endsWith("/clips/:clipId");
    if (isSingleClip) assert.equal(route.summary, "One Clip of the Song, by its id");
    else assert.equal(route.summary, operation.summary);
    assert.equal(route.auth, operation.scope !== null);
  }
});

/**
 * What MIDI runs (docs/midi.md): the catalog's `action`, with any action of the catalog a binding
 * names, and `timecode` from MTC. By design nothing else: a note or a controller carries no request
 * with an answer to send back (queries), no body (edits), no token (security, service), no picture
 * (media) and no session of the catalog (an RTP-MIDI session is the wire's own, admitted by
 * `server/midi/admit.ts`); the MIDI map and learning are steered over HTTP and MCP.
 */
const MIDI_OPERATIONS = ["action", "timecode"];

/** The operations `server/midi/` names, read from its sources (`operationNamed("...")`). */
async function midiOperationNames(dir = new URL("../../server/midi/", import.meta.url)) {
  const names = new Set<string>();
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      for (const name of await midiOperationNames(new URL(`${entry.name}/`, dir))) names.add(name);
    } else if (entry.name.endsWith(".ts")) {
      const text = await Deno.readTextFile(new URL(entry.name, dir));
      for (const [, name] of text.matchAll(/operationNamed\("([^"]+)"\)/g)) names.add(name!);
    }
  }
  return names;
}

Deno.test("MIDI reaches the action operation with every action of the catalog, and the timecode", async () => {
  assert.deepEqual([...await midiOperationNames()].sort(), MIDI_OPERATIONS);
  for (const name of MIDI_OPERATIONS) {
    assert.ok(OPERATIONS.some((o) => o.name === name), `${name} is in the catalog`);
  }
  // Every action can be bound to a note, and a note on its binding runs it.
  const noteOn = { type: "noteOn", channel: 1, note: 60, velocity: 100 } as const;
  for (const action of ACTIONS) {
    const binding = MidiBinding.parse({ kind: "noteOn", number: 60, action: action.name });
    assert.equal(bindingCall(binding, noteOn)?.name, action.name, action.name);
  }
});
