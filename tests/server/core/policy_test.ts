import assert from "node:assert/strict";
import {
  type Core,
  CueportError,
  operationNamed,
  Policy,
  type TokenCheck,
} from "../../../server/core/mod.ts";

function policy(options: { hasApiAccess?: boolean; isLocalhostExempt?: boolean } = {}) {
  const authenticator: TokenCheck = {
    authenticate: ({ token }) =>
      token === "viewer"
        ? Promise.resolve({ device: "phone", deviceId: "d1", scopes: ["view"] })
        : Promise.reject(new CueportError("AUTHENTICATION_FAILED", "Pair first")),
  };
  const core = {
    requireApiAccess() {
      if (options.hasApiAccess === false) throw new CueportError("API_ACCESS_DENIED", "No API");
    },
  };
  // Only the plan is asked of the core by `authorize`.
  return new Policy({
    core: core as unknown as Core,
    authenticator,
    isLocalhostExempt: options.isLocalhostExempt ?? true,
  });
}

const local = { address: "127.0.0.1", isLocal: true };
const remote = { address: "10.0.0.9", isLocal: false };
const codeOf = async (run: () => unknown) => {
  try {
    await run();
    return "ok";
  } catch (error) {
    return (error as CueportError).code;
  }
};

Deno.test("Policy.authorize() exempts local callers, authenticates remote ones and checks scopes", async () => {
  const p = policy();
  assert.deepEqual(p.authorize(local, operationNamed("action")), { device: "local" });
  const viewer = { ...remote, token: "viewer" };
  assert.equal((await p.authorize(viewer, operationNamed("songs"))).deviceId, "d1");
  assert.equal(
    await codeOf(() => p.authorize(viewer, operationNamed("action"))),
    "INSUFFICIENT_SCOPE",
  );
  assert.equal(
    await codeOf(() => p.authorize(remote, operationNamed("songs"))),
    "AUTHENTICATION_FAILED",
  );
  assert.equal(
    await codeOf(() =>
      policy({ isLocalhostExempt: false }).authorize(local, operationNamed("songs"))
    ),
    "AUTHENTICATION_FAILED",
  );
});

Deno.test("Policy.authorize() refuses local-only operations remotely and everything without the plan but health", async () => {
  assert.equal(
    await codeOf(() => policy().authorize(remote, operationNamed("pairCode"))),
    "LOCAL_ONLY",
  );
  const noPlan = policy({ hasApiAccess: false });
  assert.equal(
    await codeOf(() => noPlan.authorize(local, operationNamed("projects"))),
    "API_ACCESS_DENIED",
  );
  assert.equal(await codeOf(() => noPlan.authorize(remote, operationNamed("health"))), "ok");
  // Pairing needs no token; a remote caller runs it anonymously (small budgets).
  assert.equal((await policy().authorize(remote, operationNamed("pair"))).isAnonymous, true);
});

Deno.test("Policy.authorize() checks a session's grant as it is (a WebSocket client)", async () => {
  const session = { ...local, grant: { device: "phone", scopes: ["view"] } };
  assert.equal(await codeOf(() => policy().authorize(session, operationNamed("songs"))), "ok");
  assert.equal(
    await codeOf(() => policy().authorize(session, operationNamed("action"))),
    "INSUFFICIENT_SCOPE",
  );
});

Deno.test("Policy.identify() names the caller before any operation; permits() is what its grant may run", async () => {
  const p = policy();
  assert.deepEqual(p.identify(local), { device: "local" });
  const viewer = await p.identify({ ...remote, token: "viewer" });
  assert.equal(viewer.deviceId, "d1");
  assert.equal(
    await codeOf(() => p.identify({ ...remote, token: "bad" })),
    "AUTHENTICATION_FAILED",
  );
  assert.equal(
    await codeOf(() => policy({ isLocalhostExempt: false }).identify(local)),
    "AUTHENTICATION_FAILED",
  );
  // No session opens without the plan, local or not (MCP checked it by hand before).
  assert.equal(
    await codeOf(() => policy({ hasApiAccess: false }).identify(local)),
    "API_ACCESS_DENIED",
  );
  assert.equal(p.permits(viewer, operationNamed("songs"), false), true);
  assert.equal(p.permits(viewer, operationNamed("action"), false), false);
  assert.equal(p.permits({ device: "local" }, operationNamed("edit"), true), true);
  assert.equal(
    p.permits({ device: "local" }, operationNamed("pairCode"), false),
    false,
    "local only",
  );
});

Deno.test("Policy.invoke() authorizes, checks the input naming the field, and runs with the caller's retry key", async () => {
  const p = policy();
  const viewer = { ...remote, token: "viewer" };
  // Refused before the input is looked at.
  assert.equal(
    await codeOf(() => p.invoke(operationNamed("action"), viewer, { nonsense: true })),
    "INSUFFICIENT_SCOPE",
  );
  const song = operationNamed("song");
  const bad = await (async () => {
    try {
      await p.invoke(song, local, { songID: "s1", extra: 1 }, { prefix: "params." });
    } catch (error) {
      return error as CueportError;
    }
  })();
  assert.equal(bad?.details?.field, "params.extra");
  // What the operation runs with: the core, the caller, the retry key where it is idempotent.
  const seen: unknown[] = [];
  const probe = {
    ...operationNamed("action"),
    parse: (raw: unknown) => raw,
    run: (
      ctx: { address: string; retry?: unknown; deviceId?: string | undefined },
      input: unknown,
    ) => {
      seen.push(ctx.address, ctx.retry, ctx.deviceId, input);
      return "ran";
    },
  };
  const ran = await p.invoke(probe, local, { name: "PLAY_IN" }, {
    retry: { key: "k1", field: "x" },
  });
  assert.equal(ran, "ran");
  assert.deepEqual(seen, [
    "127.0.0.1",
    { client: "local", key: "k1" },
    undefined,
    { name: "PLAY_IN" },
  ]);
  // A paired device's operations know its device, whatever its address.
  const controller = {
    address: "10.0.0.9",
    isLocal: false,
    grant: { device: "p", deviceId: "d7" },
  };
  await p.invoke(probe, controller, { name: "PLAY_IN" });
  assert.equal(seen.at(-2), "d7");
});

Deno.test("Policy.exempted() grants local callers only, and only under the localhost exemption", () => {
  assert.deepEqual(policy().exempted(local), { device: "local" });
  assert.equal(policy().exempted(remote), null);
  assert.equal(policy({ isLocalhostExempt: false }).exempted(local), null);
});

Deno.test("Policy.prepare() authorizes and checks the input at once, and runs only when asked", async () => {
  let runs = 0;
  const operation = {
    ...operationNamed("songs"),
    run: () => ++runs,
  };
  const viewer = { ...remote, grant: { device: "desk", scopes: ["control"] as const } };
  assert.equal(await codeOf(() => policy().prepare(operation, viewer, {})), "INSUFFICIENT_SCOPE");
  assert.equal(
    await codeOf(() => policy().prepare(operation, local, { projectId: 7 })),
    "INVALID_MESSAGE",
  );
  const prepared = policy().prepare(operation, local, {});
  assert.ok(!(prepared instanceof Promise), "synchronous: no token to verify");
  assert.equal(runs, 0);
  assert.equal(prepared.run(), 1);
});

Deno.test("Policy.invoke() with `as` runs the transport's unit under the operation's authorization: scope, then its input, then its run", async () => {
  const seen: string[] = [];
  const unit = {
    parse: (raw: unknown) => {
      seen.push("parse");
      if (raw !== "good") throw new CueportError("INVALID_MESSAGE", "Invalid input");
      return "checked";
    },
    run: (input: unknown) => {
      seen.push(`run ${input}`);
      return "answer";
    },
  };
  const viewer = { ...remote, grant: { device: "phone", scopes: ["view"] } };
  // A refused caller is refused whatever its input: the unit is not even asked.
  assert.equal(
    await codeOf(() => policy().invoke(operationNamed("action"), viewer, "bad", { as: unit })),
    "INSUFFICIENT_SCOPE",
  );
  assert.deepEqual(seen, []);
  assert.equal(
    await codeOf(() => policy().invoke(operationNamed("songs"), viewer, "bad", { as: unit })),
    "INVALID_MESSAGE",
  );
  assert.equal(policy().invoke(operationNamed("songs"), viewer, "good", { as: unit }), "answer");
  assert.deepEqual(seen, ["parse", "parse", "run checked"]);
});
