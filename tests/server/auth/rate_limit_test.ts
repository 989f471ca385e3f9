import assert from "node:assert/strict";
import { RateLimiter } from "../../../server/auth/rate_limit.ts";
import type { CueportError } from "../../../server/core/mod.ts";
import { remoteRequest } from "../../_helpers/remote.ts";
import { startTestService } from "../../_helpers/service.ts";

Deno.test("RateLimiter allows the burst, then the rate, per address, with a Retry-After", () => {
  let now = 0;
  const limiter = new RateLimiter({ ratePerSecond: 2, burst: 3, now: () => now });
  for (let i = 0; i < 3; i++) limiter.take("a");
  const error = (() => {
    try {
      limiter.take("a");
    } catch (e) {
      return e as CueportError;
    }
  })();
  assert.equal(error?.code, "RATE_LIMITED");
  assert.equal(error?.details?.retryAfterSeconds, 1);
  limiter.take("b"); // another address has its own bucket
  now += 500; // one token back at 2 per second
  limiter.take("a");
  assert.throws(() => limiter.take("a"), /Too many requests/);
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
