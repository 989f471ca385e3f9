/**
 * PROJECT_SELECT over every transport, on a real service with two Projects: HTTP, WebSocket,
 * MCP and OSC switch the active Project, and actions and queries without a `projectID` follow.
 */
import assert from "node:assert/strict";
import { connectMcp } from "../../tools/testing/mcp_client.ts";
import { fixtureProject } from "../../tools/testing/fixture.ts";
import { startTestService, type TestService } from "../../tools/testing/service.ts";
import { TestSocket } from "../../tools/testing/ws_client.ts";
import { OscPeer, type Received } from "./osc/_peer.ts";

const SECOND = { ...fixtureProject(), id: "second", name: "Second Show" };

async function withTwoProjects(fn: (svc: TestService) => Promise<void>): Promise<void> {
  const svc = await startTestService({}, { projects: [SECOND] });
  try {
    // Which one starts active depends on the load order: make it "show".
    const first = await svc.post("/api/v1/action", { name: "PROJECT_SELECT", params: ["show"] });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    await fn(svc);
  } finally {
    await svc.stop();
  }
}

/** The `active` flag of each Project of `GET /api/v1/projects`. */
async function activeFlags(svc: TestService): Promise<Record<string, boolean>> {
  const { projects } = (await svc.get("/api/v1/projects")).body;
  return Object.fromEntries(
    projects.map((p: { projectId: string; active: boolean }) => [p.projectId, p.active]),
  );
}

async function transport(svc: TestService, projectId: string): Promise<string> {
  return (await svc.get(`/api/v1/projects/${projectId}/playstate`)).body.song?.state;
}

Deno.test("PROJECT_SELECT over HTTP: the answer, the project list, PLAY_IN and queries without projectID follow; a WebSocket client is told", async () => {
  await withTwoProjects(async (svc) => {
    const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
    try {
      await ws.take();
      await ws.auth();
      const selected = await svc.post("/api/v1/action", {
        name: "PROJECT_SELECT",
        params: ["second"],
      });
      assert.equal(selected.status, 200, JSON.stringify(selected.body));
      assert.deepEqual(selected.body, {
        ok: true,
        action: "PROJECT_SELECT",
        projectId: "second",
        params: { projectID: "second" },
        applied: true,
        message: 'Project "second" is the active Project',
      });
      const event = await ws.take((m) =>
        m.event === "state-update" &&
        m.payload.some((u: { data: { event: string } }) =>
          u.data.event === "active-project-changed"
        )
      );
      const update = event.payload.find((u: { data: { event: string } }) =>
        u.data.event === "active-project-changed"
      );
      assert.deepEqual(update, {
        updateType: "project",
        projectId: "second",
        data: { event: "active-project-changed", activeProjectId: "second" },
      });
      assert.deepEqual(await activeFlags(svc), { show: false, second: true });
      const active = (await svc.get("/api/v1/active")).body;
      assert.deepEqual([active.project.projectId, active.playstate.projectId], [
        "second",
        "second",
      ]);

      assert.equal((await svc.post("/api/v1/action", { name: "PLAY_IN" })).status, 200);
      assert.equal(await transport(svc, "second"), "playing");
      assert.equal(await transport(svc, "show"), "stopped");

      const again = await svc.post("/api/v1/action", {
        name: "PROJECT_SELECT",
        params: ["second"],
      });
      assert.equal(again.body.applied, false);
    } finally {
      await ws.close();
    }
  });
});

Deno.test("PROJECT_SELECT refusals: an unknown id is 404 naming it, a target projectID is 400 saying to use params", async () => {
  await withTwoProjects(async (svc) => {
    const unknown = await svc.post("/api/v1/action", { name: "PROJECT_SELECT", params: ["nope"] });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error.code, "NOT_FOUND");
    assert.match(unknown.body.error.message, /"nope" does not exist/);

    const target = await svc.post("/api/v1/action", {
      name: "PROJECT_SELECT",
      projectID: "second",
    });
    assert.equal(target.status, 400);
    assert.equal(target.body.error.details.field, "projectID");
    assert.match(target.body.error.message, /takes no target projectID.*"params": \["second"\]/);
    assert.deepEqual(await activeFlags(svc), { show: true, second: false });
  });
});

Deno.test("PROJECT_SELECT over WebSocket and MCP: app_project_select takes the Project to make active as projectId", async () => {
  await withTwoProjects(async (svc) => {
    const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
    const mcp = await connectMcp(svc.base);
    try {
      await ws.take();
      await ws.auth();
      const answer = await ws.request({
        type: "action",
        action: { name: "PROJECT_SELECT", params: ["second"] },
      });
      assert.equal(answer.data.projectId, "second", JSON.stringify(answer));
      assert.deepEqual(await activeFlags(svc), { show: false, second: true });

      const called = await mcp.call("app_project_select", { projectId: "show" });
      assert.equal(called.structuredContent.projectId, "show");
      assert.deepEqual(await activeFlags(svc), { show: true, second: false });
      const playing = await mcp.call("app_playback", { action: "PLAY_IN" });
      assert.equal(playing.structuredContent.projectId, "show");
      assert.equal(await transport(svc, "show"), "playing");

      const unknown = await mcp.callError("app_project_select", { projectId: "nope" });
      assert.equal(unknown.code, "NOT_FOUND", JSON.stringify(unknown));
      const wrong = await mcp.callError("app_project_select", { projectID: "second" });
      assert.deepEqual([wrong.code, wrong.details.field], ["INVALID_MESSAGE", "projectId"]);
      assert.deepEqual(await activeFlags(svc), { show: true, second: false });
    } finally {
      await mcp.close();
      await ws.close();
    }
  });
});

Deno.test("PROJECT_SELECT over OSC: /project/{projectID}/select and /action/PROJECT_SELECT; subscribers get the new active Project's values", async () => {
  await withTwoProjects(async (svc) => {
    await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["A", 0.5] });
    await svc.post("/api/v1/action", {
      name: "SET_CONTROL",
      params: ["A", 0.75],
      projectID: "second",
    });
    const desk = OscPeer.open(svc.service.ports.osc);
    const subscriber = OscPeer.open(svc.service.ports.osc);
    const is = (address: string) => (m: Received) => m.address === address;
    try {
      assert.equal((await subscriber.ask("/subscribe")).status, "ok");
      assert.deepEqual(await subscriber.next(is("/project/active")), {
        address: "/project/active",
        args: ["show"],
      });
      assert.deepEqual((await subscriber.next(is("/control/A"))).args, [0.5]);

      const readable = await desk.ask("/project/second/select");
      assert.equal(readable.status, "ok", JSON.stringify(readable));
      assert.equal(readable.data.projectId, "second");
      assert.deepEqual((await subscriber.next(is("/project/active"))).args, ["second"]);
      assert.deepEqual((await subscriber.next(is("/control/A"))).args, [0.75]);

      const byName = await desk.ask("/action/PROJECT_SELECT", ["show"]);
      assert.equal(byName.data.applied, true);
      assert.deepEqual((await subscriber.next(is("/project/active"))).args, ["show"]);

      const unknown = await desk.ask("/project/nope/select");
      assert.equal(unknown.status, "error");
      assert.equal(unknown.data.code, "NOT_FOUND");
      const targeted = await desk.ask("/action/PROJECT_SELECT", ["second", "project=second"]);
      assert.equal(targeted.data.code, "INVALID_MESSAGE", JSON.stringify(targeted));
    } finally {
      await desk.close();
      await subscriber.close();
    }
  });
});
