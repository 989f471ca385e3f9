import assert from "node:assert/strict";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { allRoutes } from "../../../server/routes/mod.ts";
import { suffixGroups } from "../../../server/routes/media_answers.ts";
import { v5Routes } from "../../../server/legacy/routes.ts";

const OPTIONS = {
  version: "0.0.0",
  startedAt: 0,
  ports: () => ({ http: 1, ws: 2, osc: 3, oscQuery: 4 }),
  clients: () => ({ ws: 0, osc: 0 }),
} as unknown as Parameters<typeof allRoutes>[0];

/** Registers `routes` as `createHttpApp` does; throws where Hono's RegExpRouter refuses one. */
function register(routes: ReturnType<typeof allRoutes>): RegExpRouter<number> {
  const router = new RegExpRouter<number>();
  for (const [i, group] of suffixGroups(routes).entries()) router.add(group.method, group.path, i);
  router.match("GET", "/health"); // builds the matcher
  return router;
}

Deno.test("Hono's RegExpRouter takes every table (SmartRouter falls back to the trie router for all routes when it refuses one)", () => {
  register(allRoutes(OPTIONS));
  register(v5Routes(
    {
      version: "0.0.0",
      ports: () => ({ http: 1, ws: null }),
      successor: () => ({ http: 2, ws: 3 }),
    } as unknown as Parameters<typeof v5Routes>[0],
  ));
});

Deno.test("routes that differ only in a parameter's extension are one registration; the extension picks the member", () => {
  const routes = [
    { method: "GET", path: "/a/:id" },
    { method: "GET", path: "/t/:p/:f.jpg" },
    { method: "GET", path: "/t/:p/:f.jpeg" },
    { method: "POST", path: "/t/:p/:f.png" },
    { method: "GET", path: "/t/:p/:f.png" },
    { method: "GET", path: "/w/:f.png" },
  ];
  const groups = suffixGroups(routes);
  assert.deepEqual(groups.map((g) => [g.method, g.path, g.members.length]), [
    ["GET", "/a/:id", 1],
    ["GET", "/t/:p/:f{.+\\.(?:jpg|jpeg|png)}", 3],
    ["POST", "/t/:p/:f{.+\\.png}", 1],
    ["GET", "/w/:f{.+\\.png}", 1],
  ]);
  assert.deepEqual(groups[1]!.members, [routes[1], routes[2], routes[4]]);
  const router = new RegExpRouter<number>();
  for (const [i, g] of groups.entries()) router.add(g.method, g.path, i);
  const found = (path: string) => {
    const [handlers, stash] = router.match("GET", path) as [
      [number, Record<string, number>][],
      string[],
    ];
    return handlers.map(([i, params]) => [i, stash[params.f!]]);
  };
  assert.deepEqual(found("/t/x/a.b.jpeg"), [[1, "a.b.jpeg"]]);
  assert.deepEqual(found("/t/x/a.gif"), []);
  assert.deepEqual(found("/t/x/.png"), []);
});
