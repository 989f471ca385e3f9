/**
 * Walks the catalog: every operation, on every transport that carries it
 * (`transportsOf`), is called with a grant lacking its scope, from a remote
 * address where it is local-only, and under a plan without API access, and
 * gets the one documented refusal of that transport. A transport that ran an
 * operation without the policy would answer something else and fail here.
 *
 * MIDI is no transport of the catalog (`transportsOf`): a message runs the
 * `action` operation its map names (and MTC the `timecode` operation), under
 * the grant of its source's address. Its rows are walked last: a participant
 * from the LAN that nobody approved is answered NO and nothing it sends runs;
 * one approved with `view` alone has every action of the default map and the
 * timecode refused INSUFFICIENT_SCOPE (both need `control`); under a plan without API
 * access even a participant on this machine is refused API_ACCESS_DENIED.
 * No MIDI operation is local-only. The participant is the probes' own
 * AppleMIDI client (`tools/reliability/_midi_participant.ts`).
 */
import assert from "node:assert/strict";
import {
  type AnyOperation,
  CueportError,
  ErrorCode,
  OPERATIONS,
  type Transport,
  transportsOf,
} from "../../server/core/mod.ts";
import { allRoutes } from "../../server/routes/mod.ts";
import { v5ErrorBody, v5Routes, v5Status } from "../../server/legacy/mod.ts";
import type { RouteSpec } from "../../server/net/route.ts";
import { remoteRequest } from "../../tools/testing/remote.ts";
import { startTestService, type TestService } from "../../tools/testing/service.ts";
import { RawSocket } from "../../tools/testing/ws_client.ts";
import { connectMcp } from "../../tools/testing/mcp_client.ts";
import { NOT_CARRIED, ToolTable } from "../../server/mcp/tools.ts";
import { until } from "../../tools/testing/until.ts";
import { ADDRESSES, OWN_ADDRESSES } from "../../server/osc/mod.ts";
import { OscPeer } from "./osc/_peer.ts";
import type { MidiMessage } from "../../server/midi/messages.ts";
import { MidiParticipant } from "../../tools/reliability/_midi_participant.ts";
import { startMidiService } from "../../tools/testing/midi.ts";

/** The transports this walk drives; the others are listed, so that none is skipped unseen. */
const WALKED: readonly Transport[] = [
  "http",
  "websocket",
  "http-5.0.0",
  "mcp",
  "websocket-5.0.0",
  "osc",
  "oscquery",
];
/** Transports not walked (none: each one's refusal is checked here). */
const NOT_WALKED: readonly Transport[] = [];

/** The 5.0.0 WebSocket's refusal of a code: its error type (docs/compat.md). */
const v5Type = (code: "INSUFFICIENT_SCOPE" | "API_ACCESS_DENIED") =>
  v5ErrorBody(new CueportError(code, "")).type;

/** A 5.0.0 WebSocket session from 127.0.0.2 (or this machine); sends and awaits by correlationId. */
async function v5Socket(svc: TestService, localAddress = "127.0.0.2") {
  const ws = await RawSocket.open("127.0.0.1", svc.service.ports.legacyWs!, {
    localAddress,
    path: "/",
  });
  let next = 0;
  const request = async (message: Record<string, unknown>) => {
    const correlationId = `v${next++}`;
    ws.send({ ...message, correlationId });
    await until(
      `answer ${correlationId}`,
      () => ws.json().some((m) => m.correlationId === correlationId),
    );
    return ws.json().find((m) => m.correlationId === correlationId);
  };
  return { ws, request };
}
/** The MCP tools by the operation each runs first (its scope is checked before its input). */
const MCP_TOOLS = new Map(new ToolTable({ maxUploadBytes: 1 }).tools.map((t) => [t.operation, t]));

const routes = allRoutes({
  version: "x",
  startedAt: 0,
  ports: () => ({ http: 0, ws: 0, osc: 0 }),
  clients: () => ({ websocket: 0, mcp: 0, osc: 0 }),
});
const v5 = v5Routes({
  version: "x",
  ports: () => ({ http: 0, ws: 0 }),
  successor: () => ({ http: 0, ws: 0 }),
});

/** A scope set that lacks `scope`. */
const WITHOUT: Record<"view" | "control" | "edit", string[]> = {
  view: ["edit"],
  control: ["view"],
  edit: ["view"],
};

/** The route that carries `operation` (on 5.0.0: its own operation that carries it). */
function routeOf(table: RouteSpec[], operation: AnyOperation): RouteSpec {
  const own = { v5Action: "action", v5Edit: "edit" } as Record<string, string>;
  const route = table.find((r) => (own[r.operation.name] ?? r.operation.name) === operation.name);
  assert.ok(route, `a route carries ${operation.name}`);
  return route;
}

/** A request on `route` with placeholders for its path params; the policy refuses before input is read. */
function pathOf(route: RouteSpec): string {
  return route.path.replace(/:([A-Za-z]+)/g, "x");
}

/** The WebSocket message that runs `operation`. */
function messageOf(operation: AnyOperation, id: string): Record<string, unknown> {
  switch (operation.kind) {
    case "query":
      return { type: "query", id, query: operation.name, params: {} };
    case "action":
      return { type: "action", id, action: { name: "MUTE_TOGGLE" } };
    default:
      return { type: operation.name === "connect" ? "auth" : operation.name, id };
  }
}

/** The OSC address that runs `operation`: its own (`/subscribe`), or a row of the table taking nothing from the path. */
function oscAddressOf(operation: AnyOperation): string {
  const own = Object.entries(OWN_ADDRESSES).find(([, o]) => o === operation);
  if (own) return own[0];
  const row = ADDRESSES.find((a) =>
    a.operation === operation && a.segments.every((s) => "literal" in s)
  );
  assert.ok(row, `an OSC address runs ${operation.name}`);
  return row.path;
}

/** An OSC sender at `host`, paired with /connect with `scopes`. */
async function oscSender(svc: TestService, host: string, scopes: string[]): Promise<OscPeer> {
  const { otp } = (await svc.post("/api/v1/pair/code", {})).body;
  const peer = OscPeer.open(svc.service.ports.osc, host);
  await peer.send("/connect", [{ type: "string", value: otp }, `walker ${scopes}`, scopes.join()]);
  assert.equal((await peer.reply("/connect")).status, "ok");
  return peer;
}

/** The code of the error `peer` gets for running `operation` over OSC (with `reply`). */
async function oscRefusal(peer: OscPeer, operation: AnyOperation): Promise<unknown> {
  const answer = await peer.ask(oscAddressOf(operation));
  assert.equal(answer.status, "error", `${operation.name} on osc: ${JSON.stringify(answer)}`);
  return answer.data.code;
}

/** A device token from 127.0.0.2 with `scopes`. */
async function tokenWith(svc: TestService, scopes: string[]): Promise<string> {
  const { otp } = (await svc.post("/api/v1/pair/code", {})).body;
  const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
    body: { otp, deviceName: `walker ${scopes}`, scopes },
  });
  assert.equal(paired.status, 200, JSON.stringify(paired.body));
  return paired.body.token;
}

/** The answer of one HTTP request from 127.0.0.2, on the 6.0 or the 5.0.0 port. */
async function httpCall(port: number, route: RouteSpec, token?: string) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const body = route.method === "POST" ? {} : undefined;
  return await remoteRequest(port, route.method, pathOf(route), {
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

/** A remote WebSocket session (127.0.0.2) authenticated with `token`; sends and awaits by id. */
async function remoteSocket(svc: TestService, token: string) {
  const ws = await RawSocket.open("127.0.0.1", svc.service.ports.ws, { localAddress: "127.0.0.2" });
  let next = 0;
  const request = async (message: Record<string, unknown>) => {
    const id = `w${next++}`;
    ws.send({ ...message, id });
    await until(`answer ${id}`, () => ws.json().some((m) => m.id === id));
    return ws.json().find((m) => m.id === id);
  };
  const auth = await request({ type: "auth", payload: { token } });
  return { ws, request, auth };
}

/** Every (operation, transport) the walk covers, and those it leaves to others. */
function pairs(): { walked: Array<[AnyOperation, Transport]>; left: Set<Transport> } {
  const walked: Array<[AnyOperation, Transport]> = [];
  const left = new Set<Transport>();
  for (const operation of OPERATIONS) {
    for (const transport of transportsOf(operation)) {
      if (WALKED.includes(transport)) walked.push([operation, transport]);
      else left.add(transport);
    }
  }
  return { walked, left };
}

Deno.test("every operation, on every transport that carries it, is refused as documented: scope, local-only, plan", async (t) => {
  const { walked, left } = pairs();
  assert.deepEqual([...left].sort(), [...NOT_WALKED].sort(), "the transports left are named");
  const svc = await startTestService({ legacyHttpPort: 0, legacyWsPort: 0 });
  const { http, legacyHttp, oscQuery } = svc.service.ports;
  const tokens = {
    all: await tokenWith(svc, ["view", "control", "edit"]),
    view: await tokenWith(svc, WITHOUT.view),
    control: await tokenWith(svc, WITHOUT.control),
    edit: await tokenWith(svc, WITHOUT.edit),
  };
  const sockets = new Map<string, Awaited<ReturnType<typeof remoteSocket>>>();
  const assistants = new Map<string, Awaited<ReturnType<typeof connectMcp>>>();
  const assistantWith = async (key: keyof typeof tokens) => {
    if (!assistants.has(key)) {
      const token = tokens[key];
      assistants.set(key, await connectMcp(svc.base, { token, localAddress: "127.0.0.2" }));
    }
    return assistants.get(key)!;
  };
  let mcpWalked = 0;
  const socketWith = async (key: keyof typeof tokens) => {
    if (!sockets.has(key)) sockets.set(key, await remoteSocket(svc, tokens[key]));
    return sockets.get(key)!;
  };
  const senders = new Map<string, OscPeer>();
  const senderWith = async (scope: keyof typeof WITHOUT) => {
    const hosts = { view: "127.0.0.4", control: "127.0.0.5", edit: "127.0.0.6" };
    if (!senders.has(scope)) senders.set(scope, await oscSender(svc, hosts[scope], WITHOUT[scope]));
    return senders.get(scope)!;
  };
  try {
    await t.step("a grant lacking the scope: 403 INSUFFICIENT_SCOPE (5.0.0: 401)", async () => {
      for (const [operation, transport] of walked) {
        const scope = operation.scope;
        if (scope === null || operation.isLocalOnly) continue;
        const where = `${operation.name} on ${transport}`;
        if (transport === "mcp") {
          // The tools of the spec leave some operations out on purpose (NOT_CARRIED); an
          // operation a tool runs only second is refused through the same Policy.invoke.
          const tool = MCP_TOOLS.get(operation);
          if (operation.name in NOT_CARRIED || !tool) continue;
          const refused = await (await assistantWith(scope)).callError(tool.name, {});
          assert.equal(refused.code, "INSUFFICIENT_SCOPE", `${where} (${tool.name})`);
          mcpWalked++;
          continue;
        }
        if (transport === "osc") {
          const refused = await oscRefusal(await senderWith(scope), operation);
          assert.equal(refused, "INSUFFICIENT_SCOPE", where);
          continue;
        }
        if (transport === "oscquery") {
          // A device token lacking the scope, and a paired OSC sender lacking it (by its address).
          const sender = { localAddress: "127.0.0.4" };
          await senderWith(scope); // pairs 127.0.0.4 without `view`
          assert.equal(scope, "view", where);
          for (
            const options of [{ headers: { authorization: `Bearer ${tokens[scope]}` } }, sender]
          ) {
            const answer = await remoteRequest(oscQuery!, "GET", "/", options);
            assert.equal(answer.status, 403, where);
            assert.equal(answer.body.error.code, "INSUFFICIENT_SCOPE", where);
          }
          continue;
        }
        if (transport === "websocket-5.0.0") {
          // 5.0.0 carries `action` (and its session, which needs no scope).
          const { ws, request } = await v5Socket(svc);
          await request({ type: "auth", payload: { token: tokens[scope] } });
          const answer = await request({
            type: "action",
            payload: { action: { name: "MuteToggleAction" } },
          });
          ws.destroy();
          assert.equal(answer.payload?.error?.type, v5Type("INSUFFICIENT_SCOPE"), where);
          assert.match(answer.payload.error.message, new RegExp(`"${scope}" scope`), where);
          continue;
        }
        if (transport === "websocket") {
          const { request } = await socketWith(scope);
          const answer = await request(messageOf(operation, ""));
          assert.equal(answer.error?.code, "INSUFFICIENT_SCOPE", where);
          continue;
        }
        const isV5 = transport === "http-5.0.0";
        const route = routeOf(isV5 ? v5 : routes, operation);
        const answer = await httpCall(isV5 ? legacyHttp! : http, route, tokens[scope]);
        assert.equal(answer.status, isV5 ? v5Status(ErrorCode.INSUFFICIENT_SCOPE) : 403, where);
        assert.equal(answer.body.error.code, "INSUFFICIENT_SCOPE", where);
      }
    });

    await t.step("a local-only operation from a remote address: 403 LOCAL_ONLY", async () => {
      for (const [operation, transport] of walked) {
        if (!operation.isLocalOnly) continue;
        const where = `${operation.name} on ${transport}`;
        if (transport === "mcp") {
          // A tool that names a path on the show machine (the show file's): a remote session
          // calling it is refused by the same Policy.invoke.
          const tool = MCP_TOOLS.get(operation);
          assert.ok(tool, `${where}: no tool carries it`);
          const refused = await (await assistantWith("all")).callError(tool.name, {
            projectId: "show",
            path: "/tmp/refused.cueport.zip",
          });
          assert.equal(refused.code, "LOCAL_ONLY", `${where} (${tool.name})`);
          continue;
        }
        assert.ok(
          transport.startsWith("http"),
          `${where}: only HTTP and MCP carry local-only operations`,
        );
        const isV5 = transport === "http-5.0.0";
        const route = routeOf(isV5 ? v5 : routes, operation);
        const answer = await httpCall(isV5 ? legacyHttp! : http, route, tokens.all);
        assert.equal(answer.status, isV5 ? v5Status(ErrorCode.LOCAL_ONLY) : 403, where);
        assert.equal(answer.body.error.code, "LOCAL_ONLY", where);
      }
    });
    assert.ok(mcpWalked > 10, `MCP tools walked: ${mcpWalked}`);

    await t.step("MCP resources without `view`: JSON-RPC -32600 INSUFFICIENT_SCOPE", async () => {
      // Resources run the catalog's reads (`projects` lists, `project` and `song` read) through
      // the same Policy.invoke as the tools: a session lacking their scope gets its refusal.
      // The scope comes first: a URI that names no resource is refused for the scope too,
      // not answered NOT_FOUND with the templates a session without `view` may not read.
      const { client } = await assistantWith("view");
      const calls: Record<string, () => Promise<unknown>> = {
        "resources/list": () => client.listResources(),
        "resources/templates/list": () => client.listResourceTemplates(),
      };
      for (const uri of ["app://projects/show", "bogus://x"]) {
        calls[`resources/read ${uri}`] = () => client.readResource({ uri });
        calls[`resources/subscribe ${uri}`] = () => client.subscribeResource({ uri });
      }
      for (const [method, call] of Object.entries(calls)) {
        // deno-lint-ignore no-explicit-any
        const refused: any = await call().then(() => null, (error) => error);
        assert.equal(refused?.code, -32600, method);
        assert.equal(refused.data?.code, "INSUFFICIENT_SCOPE", method);
      }
    });
  } finally {
    for (const { ws } of sockets.values()) ws.destroy();
    for (const peer of senders.values()) await peer.close();
    for (const mcp of assistants.values()) await mcp.close();
    await svc.stop();
  }

  await t.step("a plan without API access: 403 API_ACCESS_DENIED (5.0.0: 401)", async () => {
    const free = await startTestService({ plan: "free", legacyHttpPort: 0, legacyWsPort: 0 });
    try {
      const ports = free.service.ports;
      const socket = await RawSocket.open("127.0.0.1", ports.ws);
      // A sender on this machine: the localhost exemption does not hide the plan.
      const sender = OscPeer.open(ports.osc);
      const seen = new Set<string>();
      for (const [operation, transport] of walked) {
        if (!operation.needsApiAccess) continue;
        const where = `${operation.name} on ${transport}`;
        if (transport === "mcp") {
          // No MCP session opens without the plan (Policy.identify): 403 API_ACCESS_DENIED.
          if (seen.has("mcp")) continue;
          seen.add("mcp");
          const opened = await remoteRequest(ports.http, "POST", "/mcp", {
            localAddress: "127.0.0.1",
            headers: { accept: "application/json, text/event-stream" },
            body: { jsonrpc: "2.0", id: 1, method: "initialize", params: {} },
          });
          assert.equal(opened.status, 403, where);
          assert.match(JSON.stringify(opened.body), /API_ACCESS_DENIED|plan/, where);
          continue;
        }
        if (transport === "osc") {
          assert.equal(await oscRefusal(sender, operation), "API_ACCESS_DENIED", where);
          continue;
        }
        if (transport === "oscquery") {
          const answer = await remoteRequest(ports.oscQuery!, "GET", "/", {
            localAddress: "127.0.0.1",
          });
          assert.equal(answer.status, 403, where);
          assert.equal(answer.body.error.code, "API_ACCESS_DENIED", where);
          continue;
        }
        if (transport === "websocket-5.0.0") {
          if (seen.has(transport)) continue;
          seen.add(transport);
          const { ws, request } = await v5Socket(free, "127.0.0.1");
          const auth = await request({ type: "auth", payload: {} });
          ws.destroy();
          assert.equal(auth.payload?.type, v5Type("API_ACCESS_DENIED"), where);
          assert.match(auth.payload.message, /plan does not include API access/, where);
          continue;
        }
        if (transport === "websocket") {
          // The session cannot open without the plan: every message after is refused with it.
          if (seen.has("websocket")) continue;
          seen.add("websocket");
          socket.send({ type: "auth", id: "a", payload: {} });
          await until("the auth answer", () => socket.json().some((m) => m.id === "a"));
          const auth = socket.json().find((m) => m.id === "a");
          assert.equal(auth.error.code, "API_ACCESS_DENIED", where);
          continue;
        }
        const isV5 = transport === "http-5.0.0";
        const route = routeOf(isV5 ? v5 : routes, operation);
        // From this machine: local-only operations and the localhost exemption do not hide the plan.
        const answer = await remoteRequest(
          isV5 ? ports.legacyHttp! : ports.http,
          route.method,
          pathOf(route),
          { localAddress: "127.0.0.1", ...(route.method === "POST" ? { body: {} } : {}) },
        );
        assert.equal(answer.status, isV5 ? v5Status(ErrorCode.API_ACCESS_DENIED) : 403, where);
        assert.equal(answer.body.error.code, "API_ACCESS_DENIED", where);
      }
      socket.destroy();
      await sender.close();
    } finally {
      await free.stop();
    }
  });
});

/** A message of each row of the default map (docs/midi.md) and of timecode, with what it runs. */
const MIDI_ROWS: ReadonlyArray<[MidiMessage, string]> = [
  [{ type: "noteOn", channel: 1, note: 36, velocity: 64 }, "PLAY_CLIP_BY_INDEX_IN"],
  [{ type: "noteOff", channel: 1, note: 37, velocity: 0 }, "RELEASE_CLIP_BY_INDEX_IN"],
  [{ type: "noteOn", channel: 1, note: 125, velocity: 100 }, "PREV_SONG_IN"],
  [{ type: "noteOn", channel: 1, note: 126, velocity: 100 }, "NEXT_SONG_IN"],
  [{ type: "noteOn", channel: 1, note: 127, velocity: 100 }, "STOP_ALL_CLIPS_IN"],
  [{ type: "controlChange", channel: 1, controller: 1, value: 127 }, "SET_CONTROL"],
  [{ type: "programChange", channel: 1, program: 19 }, "SONG_SELECT_PGM_ID"],
  [{ type: "songSelect", song: 1 }, "SONG_SELECT_IN"],
  [{ type: "start" }, "PLAY_IN"],
  [{ type: "stop" }, "STOP_IN"],
  [{ type: "continue" }, "RESUME_IN"],
  // An MTC full frame, 01:00:00:00 at 25 fps: the reader's locate runs the `timecode` operation.
  [{ type: "sysex", data: Uint8Array.from([0x7f, 0x7f, 1, 1, 0x21, 0, 0, 0]) }, "timecode"],
];

/** What the show looks like to a refusal, read in the service (a free plan refuses HTTP too). */
function showOf(svc: TestService): string {
  // deno-lint-ignore no-explicit-any
  const play: any = svc.service.core.model.playstate("show");
  // deno-lint-ignore no-explicit-any
  const clips = play.clips.map((c: any) => [c.clipID, c.state, c.held ?? null]);
  return JSON.stringify({ song: play.activeSongID, clips, controls: play.controls });
}

/** The MIDI transport's counts and last error (`GET /api/v1/midi`), read in the service. */
const midiStatus = (svc: TestService) => svc.service.midi.status();

/** Sends each row's message from `peer` and expects the action refused with `code`. */
async function midiRefusals(svc: TestService, peer: MidiParticipant, code: string): Promise<void> {
  const before = showOf(svc);
  for (const [message, action] of MIDI_ROWS) {
    const { failed } = midiStatus(svc).counts;
    await peer.send([message]);
    await until(`${message.type} refused`, () => midiStatus(svc).counts.failed > failed);
    const status = midiStatus(svc);
    assert.equal(status.counts.failed, failed + 1, `${message.type}: one call, refused`);
    assert.deepEqual(
      { action: status.lastError?.action, code: status.lastError?.code },
      { action, code },
      `${message.type} on midi`,
    );
  }
  assert.equal(showOf(svc), before, "nothing ran");
}

Deno.test({
  name:
    "MIDI: an unpaired LAN participant is answered NO; `view` alone and a plan without API access are refused",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const svc = await startMidiService();
    const port = svc.service.ports.midi!;
    assert.ok(port > 0, "the MIDI session is bound");
    const lan = await MidiParticipant.open("127.0.0.2", port, "Stage pad");
    try {
      await t.step("unpaired from the LAN: NO, listed for approval, nothing runs", async () => {
        const before = showOf(svc);
        assert.equal(await lan.join(), "NO");
        const status = (await svc.get("/api/v1/midi")).body;
        assert.deepEqual(status.participants, []);
        assert.deepEqual(status.pending.map((p: { address: string }) => p.address), [
          "127.0.0.2",
        ]);
        assert.equal(status.pending[0].name, "Stage pad");
        // Packets sent anyway, from outside the session, are dropped unread.
        for (const [message] of MIDI_ROWS) await lan.send([message]);
        await lan.send([{ type: "controlChange", channel: 1, controller: 2, value: 1 }]);
        assert.equal(await lan.join(), "NO", "asked again: still NO"); // the packets went first
        const { counts } = (await svc.get("/api/v1/midi")).body;
        assert.deepEqual(counts, { received: 0, refused: 0, failed: 0, dropped: 0 });
        assert.equal((await svc.get("/api/v1/midi")).body.pending.length, 1, "listed once");
        assert.equal(showOf(svc), before, "nothing ran");
      });

      await t.step(
        "approved with `view` alone: every default-map action and timecode refused INSUFFICIENT_SCOPE",
        async () => {
          const { pending } = (await svc.get("/api/v1/midi")).body;
          const approved = await svc.post(`/api/v1/midi/approvals/${pending[0].requestId}`, {
            approve: true,
            scopes: ["view"],
          });
          assert.equal(approved.status, 200, JSON.stringify(approved.body));
          assert.equal(await lan.join(), "OK");
          await midiRefusals(svc, lan, "INSUFFICIENT_SCOPE");
        },
      );
    } finally {
      await lan.close();
      await svc.stop();
    }

    await t.step(
      "a plan without API access: a participant on this machine refused API_ACCESS_DENIED",
      async () => {
        const free = await startMidiService({ plan: "free" });
        const local = await MidiParticipant.open("127.0.0.1", free.service.ports.midi!, "DAW");
        try {
          assert.equal(await local.join(), "OK");
          await midiRefusals(free, local, "API_ACCESS_DENIED");
        } finally {
          await local.close();
          await free.stop();
        }
      },
    );
  },
});
