/**
 * Every live answer, checked against the schema it is declared with: every
 * HTTP route of the route table (derived from the table, so a new route
 * cannot be forgotten) and the WebSocket's answers and state updates. The
 * schemas are strict, so an unknown or missing field fails here.
 */
import { until } from "../../tools/testing/until.ts";
import assert from "node:assert/strict";
import { ShowDownload } from "../../server/core/operations/show_operations.ts";
import { SHOW_MEDIA_TYPE } from "../../protocol/show_file.ts";
import type { z } from "zod";
import { allRoutes } from "../../server/routes/mod.ts";
import type { RouteSpec } from "../../server/routes/route.ts";
import { MediaImage, operationsOfKind } from "../../server/core/operations/mod.ts";
import {
  ActionAnswer,
  AuthAnswer,
  ConnectedEvent,
  ErrorAnswer,
  FullAnswer,
  PingAnswer,
  responseOf,
  StateUpdateEvent,
  SubscribeAnswer,
} from "../../server/socket/answers.ts";
import { startTestService, type TestService } from "../../tools/testing/service.ts";
import { TestSocket } from "../../tools/testing/ws_client.ts";
import { jpeg } from "../../tools/testing/media.ts";
import { encodePng } from "../../lib/png.ts";

/** A request to make, from the live data. */
interface Call {
  /** The path with its parameters filled, and its query. */
  path: string;
  body?: unknown;
  /** A raw body (uploads). */
  raw?: Uint8Array<ArrayBuffer>;
}

/** What the routes' path parameters are filled with, from the live data. */
type Ids = Record<string, string>;

/** Validates `value` against `schema` (`.parse`), naming `what` and the issues in the failure. */
function check(schema: z.ZodType, value: unknown, what: string): void {
  try {
    schema.parse(value);
  } catch (error) {
    const issues = (error as z.ZodError).issues?.map((i) =>
      `${i.path.join(".") || "(top)"}: ${i.message}`
    );
    const answer = JSON.stringify(value).slice(0, 300);
    assert.fail(`${what}: does not match its schema: ${issues?.join("; ") ?? error}\n${answer}`);
  }
}

async function pairDevice(svc: TestService): Promise<{ token: string; deviceId: string }> {
  const { otp } = (await svc.post("/api/v1/pair/code", {})).body;
  const paired = await svc.post("/api/v1/pair", { otp, deviceName: "Answers" });
  assert.equal(paired.status, 200);
  return paired.body;
}

function openSocket(svc: TestService): Promise<TestSocket> {
  return TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
}

/**
 * Routes that need more than their path filled: a body, a query, or state
 * to act on. A route not here gets its path filled from `Ids`; a POST or
 * DELETE route not here fails the test (it needs an input written for it).
 */
const INPUTS: Record<
  string,
  (svc: TestService, ids: Ids, sockets: TestSocket[]) => Promise<Call> | Call
> = {
  "GET /waveforms/:projectId/:fileId.png": (_svc, ids) => ({
    path: `/waveforms/${ids.projectId}/${ids.audioFileId}.png`,
  }),
  "GET /api/v1/projects/:projectId/clips": (_svc, ids) => ({
    path: `/api/v1/projects/${ids.projectId}/clips?ids=${ids.clipIds}`,
  }),
  "POST /api/v1/action": () => ({
    path: "/api/v1/action",
    body: { name: "TRIGGER_CLIP_IN", params: ["clip-rings"], velocity: 90 },
  }),
  "POST /api/v1/pair/code": () => ({ path: "/api/v1/pair/code", body: {} }),
  "POST /api/v1/midi/learn": (svc) => {
    // The learn waits for a message: a controller moves once it waits.
    const midi = svc.service.midi;
    const from = { kind: "local", address: "Answers pad", name: "Answers pad" } as const;
    void until("the learn waiting", () => midi.status().learning !== null).then(() =>
      midi.receive([{ type: "controlChange", channel: 1, controller: 21, value: 64 }], from)
    );
    return { path: "/api/v1/midi/learn", body: { action: "SET_CONTROL", params: ["A"] } };
  },
  "POST /api/v1/midi/learn/cancel": () => ({ path: "/api/v1/midi/learn/cancel", body: {} }),
  "POST /api/v1/midi/approvals/:requestId": (svc) => {
    // A source from the network is refused and listed for the operator.
    const from = { kind: "rtp", address: "192.0.2.7", name: "Answers desk" } as const;
    svc.service.midi.receive([{ type: "start" }], from);
    const { requestId } = svc.service.midi.status().pending[0]!;
    return { path: `/api/v1/midi/approvals/${requestId}`, body: { approve: true } };
  },
  "POST /api/v1/timecode": () => ({
    path: "/api/v1/timecode",
    body: { timecode: "01:00:02:00", rate: 25 },
  }),
  "POST /api/v1/pair": async (svc) => {
    const { otp } = (await svc.post("/api/v1/pair/code", {})).body;
    return { path: "/api/v1/pair", body: { otp, deviceName: "Pairing" } };
  },
  "DELETE /api/v1/devices/:deviceId": async (svc) => {
    const { deviceId } = await pairDevice(svc);
    return { path: `/api/v1/devices/${deviceId}` };
  },
  "POST /api/v1/auth/rotate-key": () => ({ path: "/api/v1/auth/rotate-key", body: {} }),
  "POST /api/v1/approvals/:requestId": async (svc, _ids, sockets) => {
    // A local client without credentials waits for the operator (approval "wait").
    const ws = await openSocket(svc);
    sockets.push(ws);
    ws.send({ type: "auth", id: "waiting", payload: { deviceName: "Waiting desk" } });
    let pending: { approvals: Array<{ requestId: string }> } = { approvals: [] };
    const deadline = performance.now() + 10_000;
    while (pending.approvals.length === 0 && performance.now() < deadline) {
      pending = (await svc.get("/api/v1/approvals")).body;
    }
    check(routeOf("GET", "/api/v1/approvals").response, pending, "GET /api/v1/approvals");
    return {
      path: `/api/v1/approvals/${pending.approvals[0]!.requestId}`,
      body: { approve: true },
    };
  },
  "POST /api/v1/refresh": () => ({ path: "/api/v1/refresh", body: {} }),
  "POST /api/v1/edit": () => ({
    path: "/api/v1/edit",
    body: {
      edits: [
        { name: "song.add", params: { title: "Answers" } },
        { name: "project.rename", params: { name: "Answered" } },
      ],
    },
  }),
  "POST /api/v1/projects/import": async (svc, ids) => {
    // A show file of the fixture's own Project: imported under a new id beside it.
    const exported = await fetch(`${svc.base}/api/v1/projects/${ids.projectId}/export`);
    assert.equal(exported.status, 200);
    return {
      path: "/api/v1/projects/import",
      raw: new Uint8Array(await exported.arrayBuffer()),
    };
  },
  "GET /api/v1/presets/:kind/:id/images/:name": async (svc) => {
    // A preset with an IMPORTED image: an .fs uploaded with its PNG.
    const form = new FormData();
    const code = `/*{"INPUTS": [{"NAME": "inputImage", "TYPE": "image"}],
  "IMPORTED": {"grain": {"PATH": "grain.png"}}}*/
void main() { gl_FragColor = IMG_THIS_PIXEL(inputImage) * IMG_THIS_PIXEL(grain); }
`;
    form.append("file", new Blob([code]), "Grain.fs");
    form.append(
      "file",
      new Blob([new Uint8Array(encodePng(2, 2, new Uint8Array(16).fill(99)))]),
      "grain.png",
    );
    const res = await fetch(`${svc.base}/api/v1/files/upload`, { method: "POST", body: form });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return { path: `/api/v1/presets/effect/${body.edits[0].created.presetID}/images/grain` };
  },
  "POST /api/v1/files/upload": () => ({
    path: "/api/v1/files/upload?name=still.jpg",
    raw: new Uint8Array(jpeg(64, 48)),
  }),
};

const ROUTES = allRoutes({
  version: "test",
  startedAt: 0,
  ports: () => ({ http: 0, ws: 0, osc: 0 }),
  clients: () => ({ websocket: 0, mcp: 0, osc: 0 }),
});

function routeOf(method: string, path: string): RouteSpec {
  const route = ROUTES.find((r) => r.method === method && r.path === path);
  assert.ok(route, `No route ${method} ${path}`);
  return route;
}

/** The request for a route: its input, or its path filled from `ids`. */
function callOf(route: RouteSpec, svc: TestService, ids: Ids, sockets: TestSocket[]) {
  const key = `${route.method} ${route.path}`;
  const input = INPUTS[key];
  if (input) return input(svc, ids, sockets);
  assert.equal(route.method, "GET", `${key}: write its input in INPUTS`);
  const path = route.path.replace(/:([A-Za-z]+)/g, (_m: string, name: string) => {
    assert.ok(ids[name], `${key}: no live value for :${name}; add one to the ids`);
    return ids[name]!;
  });
  return { path };
}

async function send(svc: TestService, route: RouteSpec, call: Call): Promise<unknown> {
  const init: RequestInit = { method: route.method };
  if (call.raw) init.body = call.raw;
  else if (call.body !== undefined) {
    init.body = JSON.stringify(call.body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await fetch(svc.base + call.path, init);
  const produces = route.operation.produces;
  if (produces) {
    // An image: its type is one the operation declares, and it has bytes.
    const bytes = await res.arrayBuffer();
    assert.equal(res.status, 200, `${route.method} ${call.path}`);
    assert.ok(produces.includes(res.headers.get("content-type") ?? ""), call.path);
    assert.ok(bytes.byteLength > 0, call.path);
    if (res.headers.get("content-type") === SHOW_MEDIA_TYPE) {
      // A show file: a zip (its local header's signature), sent as it is written.
      assert.deepEqual([...new Uint8Array(bytes, 0, 2)], [0x50, 0x4b], call.path);
      const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1];
      assert.ok(name?.endsWith(".cueport.zip"), call.path);
      return new ShowDownload(new Blob([bytes]).stream(), name!);
    }
    return res.headers.get("etag") === null ? null : new MediaImage(
      new Uint8Array(bytes),
      res.headers.get("content-type") as "image/png",
      res.headers.get("etag")!,
      res.headers.get("x-cueport-origin") as "image",
    );
  }
  const text = await res.text();
  assert.equal(res.status, 200, `${route.method} ${call.path}: ${text}`);
  return JSON.parse(text);
}

/** The live ids the path parameters take. */
async function liveIds(svc: TestService): Promise<Ids> {
  const project = (await svc.get("/api/v1/active")).body.project;
  const preset = (await svc.get("/api/v1/presets")).body.presets[0];
  const edit = (await svc.get("/api/v1/edit/schema")).body.edits[0];
  return {
    projectId: project.projectId,
    songId: project.songs[0].songID,
    clipIds: project.clips.slice(0, 3).map((c: { clipID: string }) => c.clipID).join(","),
    kind: preset.kind,
    id: preset.presetId,
    name: edit.name,
    fileId: project.clips[0].fileId,
    audioFileId: project.songs[0].audio.fileId,
    cameraId: "default",
  };
}

Deno.test("every HTTP route and WebSocket answer matches its declared schema exactly", async (t) => {
  const svc = await startTestService({ approval: "wait" }, { demo: true });
  const sockets: TestSocket[] = [];
  try {
    // Something plays, the editor is open: the answers carry their optional parts.
    await svc.post("/api/v1/action", { name: "PLAY_IN" });
    await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["A", 0.5] });
    await svc.post("/api/v1/action", {
      name: "SET_PARAM",
      params: ["clip:clip-aurora/opacity", 0.7],
    });
    const ids = await liveIds(svc);
    await svc.post("/api/v1/action", { name: "OPEN_EDITOR", params: [ids.kind, ids.id] });
    await svc.advance(1500);

    await t.step("every route of the table answers its response schema", async () => {
      const failures: string[] = [];
      for (const route of ROUTES) {
        const call = await callOf(route, svc, ids, sockets);
        if (route.operation.name === "outputFrame") {
          // No output runs here (tests/server/routes/output_frame_test.ts draws one): the
          // documented refusal, naming the setting to change.
          const res = await fetch(svc.base + call.path);
          const body = await res.json();
          if (res.status !== 409 || body.error?.code !== "NO_OUTPUT") {
            failures.push(`${route.method} ${call.path}: ${res.status} ${JSON.stringify(body)}`);
          }
          continue;
        }
        try {
          check(route.response, await send(svc, route, call), `${route.method} ${route.path}`);
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
      assert.deepEqual(failures, [], failures.join("\n\n"));
    });

    await t.step("WebSocket: connected, answers, errors and state updates", async () => {
      const { token } = await pairDevice(svc);
      const ws = await openSocket(svc);
      sockets.push(ws);
      check(ConnectedEvent, await ws.take(), "connected");
      check(responseOf(AuthAnswer), await ws.request({ type: "auth", payload: { token } }), "auth");
      check(
        responseOf(SubscribeAnswer),
        await ws.request({ type: "subscribe", payload: {} }),
        "subscribe",
      );
      // The refresh of the HTTP pass closed the editor: open it again for the queries.
      await svc.post("/api/v1/action", { name: "OPEN_EDITOR", params: [ids.kind, ids.id] });
      check(responseOf(FullAnswer), await ws.request({ type: "full" }), "full");
      check(responseOf(PingAnswer), await ws.request({ type: "ping" }), "ping");
      const params = {
        projectId: ids.projectId,
        songID: ids.songId,
        ids: ids.clipIds!.split(","),
        kind: ids.kind,
        presetId: ids.id,
      };
      // Every query of the catalog, with the params its input takes, against its output schema.
      for (const [query, operation] of operationsOfKind("query")) {
        const takes = Object.keys((operation.input as z.ZodObject).shape ?? {});
        const own = Object.fromEntries(
          Object.entries(params).filter(([name]) => takes.includes(name)),
        );
        const answer = await ws.request({ type: "query", query, params: own });
        check(responseOf(operation.output), answer, `query ${query}`);
      }
      const actions = [
        { name: "TRIGGER_CLIP_IN", params: ["clip-strobe"], velocity: 100 },
        { name: "PLAY_IN" },
        { name: "SEEK_SONG_IN", params: [ids.songId, 0.25] },
        { name: "SEEK_CLIP_IN", params: ["clip-strobe", 0.5] },
        { name: "NEXT_SONG_IN" },
        { name: "CLIP_DIRECTION", params: ["clip-aurora", "backward"] },
        { name: "SET_CONTROL", params: ["B", 0.25] },
        { name: "SET_PARAM", params: ["clip:clip-waves/opacity", 0.5] },
        { name: "OUTPUT_LEVEL_IN", params: [0.8] },
        { name: "MUTE_TOGGLE" },
        { name: "FULLSCREEN_TOGGLE" },
        { name: "OPEN_EDITOR", params: [ids.kind, ids.id] },
      ];
      for (const action of actions) {
        const { velocity, ...rest } = action;
        const message = { type: "action", action: rest, ...(velocity ? { velocity } : {}) };
        check(responseOf(ActionAnswer), await ws.request(message), `action ${action.name}`);
      }
      check(
        ErrorAnswer,
        await ws.request({ type: "action", action: { name: "NO_SUCH_ACTION" } }),
        "error",
      );
      check(
        ErrorAnswer,
        await ws.request({ type: "query", query: "song", params: { songID: "ghost" } }),
        "error with details",
      );
      const edited = await svc.post("/api/v1/edit", {
        edits: [
          { name: "song.add", params: { title: "Live" } },
          { name: "clip.move", params: { clipID: "clip-rings", position: 0 } },
        ],
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      await svc.advance(1500);
      // The edit's song update comes last; then every update asked for has arrived.
      const last = await ws.take((m) =>
        m.event === "state-update" &&
        m.payload.some((u: { updateType: string }) => u.updateType === "song")
      );
      const events = [...ws.messages.filter((m) => m.event === "state-update"), last];
      const seen = new Set<string>();
      for (const event of events) {
        check(StateUpdateEvent, event, `state-update ${event.seq}`);
        for (const u of event.payload) seen.add(`${u.updateType} ${u.data.event}`);
      }
      for (const kind of ["full requested", "appState editor-opened", "volume mute-changed"]) {
        assert.ok(seen.has(kind), `a "${kind}" update was checked (saw: ${[...seen]})`);
      }
      for (const type of ["playstate", "clip", "song", "project"]) {
        assert.ok(
          [...seen].some((s) => s.startsWith(`${type} `)),
          `a ${type} update was checked: ${[...seen]}`,
        );
      }
    });
  } finally {
    for (const ws of sockets) await ws.close();
    await svc.stop();
  }
});
