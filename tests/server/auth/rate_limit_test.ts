import assert from "node:assert/strict";
import { RateLimiter } from "../../../server/auth/rate_limit.ts";
import type { CueportError } from "../../../server/core/mod.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService } from "../../../tools/testing/service.ts";

Deno.test("RateLimiter allows the burst, then the rate, per address, with a Retry-After", () => {
  let now = 0;
  const limiter = new RateLimiter({ ratePerSecond: 2, burst: 3, now: () => now });
  const requests = limiter.meter("requests", 2);
  for (let i = 0; i < 3; i++) requests.take("a");
  const error = (() => {
    try {
      requests.take("a");
    } catch (e) {
      return e as CueportError;
    }
  })();
  assert.equal(error?.code, "RATE_LIMITED");
  assert.equal(error?.details?.retryAfterSeconds, 1);
  requests.take("b"); // another address has its own bucket
  now += 500; // one token back at 2 per second
  requests.take("a");
  assert.throws(() => requests.take("a"), /Too many requests: over 2 per second/);
});

Deno.test("RateLimiter: the meters of all transports share one budget per address, each at its cost", () => {
  let now = 0;
  const limiter = new RateLimiter({ ratePerSecond: 10, burst: 10, now: () => now });
  const requests = limiter.meter("requests", 10); // costs 1
  const messages = limiter.meter("messages", 40); // costs 1/4
  for (let i = 0; i < 8; i++) requests.take("a");
  for (let i = 0; i < 8; i++) messages.take("a"); // the last 2 requests' worth
  assert.throws(() => messages.take("a"), /Too many messages: over 40 per second/);
  assert.throws(() => requests.take("a"), /Too many requests/);
  for (let i = 0; i < 40; i++) messages.take("b"); // a message-only address gets 4 times as many
  assert.throws(() => messages.take("b"));
  now += 100; // one request's worth back: four messages
  for (let i = 0; i < 4; i++) messages.take("a");
  assert.throws(() => messages.take("a"));
});

Deno.test("HTTP rate limit: a remote address gets 429 with Retry-After; local clients are not limited", async () => {
  const svc = await startTestService({ httpRatePerSecond: 1, httpBurst: 3 });
  try {
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(await remoteRequest(svc.service.ports.http, "GET", "/health"));
    }
    const limited = statuses.filter((r) => r.status === 429);
    assert.ok(limited.length >= 2, `${limited.length} limited`);
    assert.equal(limited[0]!.body.error.code, "RATE_LIMITED");
    assert.ok(Number(limited[0]!.headers["retry-after"]) >= 1);
    for (let i = 0; i < 20; i++) assert.equal((await svc.get("/health")).status, 200);
  } finally {
    await svc.stop();
  }
});

Deno.test("RateLimiter meters never limit a local client, and only those", () => {
  const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1, now: () => 0 });
  const requests = limiter.meter("requests", 1);
  for (let i = 0; i < 100; i++) {
    requests.take("127.0.0.1");
    requests.take("::1");
    requests.take("::ffff:127.0.0.1");
  }
  requests.take("127.0.0.2");
  assert.throws(() => requests.take("127.0.0.2"), /Too many requests/, "127.0.0.2 is remote");
});

Deno.test("RateLimiter with exemptsLocal false limits a local client too (a guard, not a budget)", () => {
  const lines = new RateLimiter({ ratePerSecond: 1, burst: 1, exemptsLocal: false, now: () => 0 })
    .meter("lines", 1);
  lines.take("127.0.0.1");
  assert.throws(() => lines.take("127.0.0.1"), /Too many lines/);
});
