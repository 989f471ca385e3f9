import assert from "node:assert/strict";
import { VirtualClock } from "../../../../player/clock.ts";
import {
  ClockExchange,
  ClockFollower,
  decodePacket,
  encodePacket,
  epochMonotonicClock,
  type ExchangeCounts,
  ShowClock,
  skewedClock,
} from "../../../../server/rigs/clock/mod.ts";
import { until } from "../../../../tools/testing/until.ts";

const LOOPBACK = "127.0.0.1";
const udp = (hostname: string, port: number) => ({ transport: "udp" as const, hostname, port });

Deno.test("ClockFollower brings a show clock 250 ms off to under a millisecond of the leader's on loopback", async () => {
  const leaderShow = new ShowClock(skewedClock(epochMonotonicClock, 250));
  leaderShow.lead();
  const followerShow = new ShowClock(epochMonotonicClock);
  const isMember = (address: string) => address === LOOPBACK;
  const leader = ClockExchange.open({
    hostname: LOOPBACK,
    port: 0,
    isMember,
    local: skewedClock(epochMonotonicClock, 250),
    answerClock: leaderShow,
  });
  const exchange = ClockExchange.open({
    hostname: LOOPBACK,
    port: 0,
    isMember,
    local: epochMonotonicClock,
    answerClock: followerShow,
  });
  const follower = new ClockFollower({ exchange, show: followerShow, local: epochMonotonicClock });
  try {
    follower.follow({ hostname: LOOPBACK, port: leader.addr.port });
    const first = await follower.poll();
    assert.equal(first.correction, "step");
    // Wait by progress: more bursts until the filter's bound is under a millisecond.
    for (let i = 0; i < 50 && !(follower.estimate!.error < 1); i++) await follower.poll();
    assert.ok(followerShow.error < 1, `estimated error ${followerShow.error} ms`);
    // Both show clocks read at one instant of the machine's clock (the leader's runs 250 ms on
    // it): two reads one after the other would count the time between them, on a busy machine
    // more than the millisecond checked.
    const t = epochMonotonicClock.now();
    const apart = followerShow.at(t) - leaderShow.at(t + 250);
    assert.ok(Math.abs(apart) < 1, `the show clocks are ${apart} ms apart`);
    assert.ok(Math.abs(followerShow.offset - 250) <= followerShow.error);
    assert.equal(leader.counts.notMember + leader.counts.rateLimited, 0);
  } finally {
    await follower.close();
    await Promise.all([leader.close(), exchange.close()]);
  }
});

/** A rig on loopback: its clock `skewMs` off the machine's, its show clock, its exchange. */
function rig(skewMs: number, intervalMs = 1000) {
  const local = skewedClock(epochMonotonicClock, skewMs);
  const show = new ShowClock(local);
  const exchange = ClockExchange.open({
    hostname: LOOPBACK,
    port: 0,
    isMember: (address) => address === LOOPBACK,
    local,
    answerClock: show,
  });
  const follower = new ClockFollower({ exchange, show, local }, { intervalMs });
  const peer = { hostname: LOOPBACK, port: exchange.addr.port };
  return { show, exchange, follower, peer };
}

Deno.test("ClockFollower: at a failover the new leader keeps show time, and the others slew onto it", async () => {
  const [a, b, c] = [rig(250), rig(-40), rig(900)];
  try {
    assert.deepEqual(a.follower.status(), {
      role: "unsynced",
      leader: null,
      offsetMs: 0,
      errorMs: null,
      jitterMs: null,
      delayMs: null,
      steps: 0,
      slews: 0,
    });
    a.follower.follow(null);
    for (const r of [b, c]) {
      r.follower.follow(a.peer);
      assert.equal((await r.follower.poll()).correction, "step");
    }
    // a is gone: b is elected and leads, c follows b.
    // b's step left no slew: its offset is a constant that leading must keep.
    const before = b.show.offset;
    b.follower.follow(null);
    assert.ok(Math.abs(b.show.offset - before) < 1, "leading does not move b's show time");
    assert.equal(b.show.error, 0);
    c.follower.follow(b.peer);
    const after = await c.follower.poll();
    assert.equal(after.correction, "slew", "b's show time already agreed with a's");
    const t = epochMonotonicClock.now(); // c's clock runs 900 ms on the machine's, b's -40
    const apart = c.show.at(t + 900) - b.show.at(t - 40);
    assert.ok(Math.abs(apart) < 2, `${apart} ms`);
    assert.deepEqual(await b.follower.poll(), { estimate: null, correction: null });
    assert.deepEqual(b.follower.status().role, "leader");
    const status = c.follower.status();
    assert.equal(status.role, "follower");
    assert.deepEqual(status.leader, b.peer);
    assert.deepEqual([status.steps, status.slews], [1, 1]);
    assert.ok(status.errorMs !== null && status.delayMs !== null && status.jitterMs === 0);
  } finally {
    for (const r of [a, b, c]) {
      await r.follower.close();
      await r.exchange.close();
    }
  }
});

Deno.test("ClockFollower.start() polls the leader until close()", async () => {
  const [a, b] = [rig(0), rig(30, 5)];
  try {
    a.follower.follow(null);
    b.follower.follow(a.peer);
    b.follower.start();
    const corrections = () => b.show.corrections.steps + b.show.corrections.slews;
    await until("three polls", () => corrections() >= 3);
    assert.equal(b.show.corrections.steps, 1, "the first steps, the next slew");
  } finally {
    for (const r of [a, b]) {
      await r.follower.close();
      await r.exchange.close();
    }
  }
});

Deno.test("ClockExchange ignores a non-member's datagrams and answers the members", async () => {
  const exchange = ClockExchange.open({
    hostname: LOOPBACK,
    port: 0,
    isMember: (address) => address === "127.0.0.2",
    local: new VirtualClock(0),
  });
  const stranger = Deno.listenDatagram({ transport: "udp", hostname: LOOPBACK, port: 0 });
  const member = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.2", port: 0 });
  try {
    const to = udp(LOOPBACK, exchange.addr.port);
    for (let id = 0; id < 10; id++) {
      await stranger.send(encodePacket({ kind: "request", id, t1: 1 }), to);
    }
    await member.send(encodePacket({ kind: "request", id: 99, t1: 2 }), to);
    const [answer] = await member.receive();
    // One socket reads in order: the stranger's ten were read before the member's answer left.
    assert.equal(decodePacket(answer)?.id, 99);
    assert.deepEqual(exchange.counts, { ...zero(), answered: 1, notMember: 10 });
    assert.equal(
      await exchange.measure({ hostname: "127.0.0.3", port: 9 }, { count: 1, waitMs: 20 }),
      null,
    );
  } finally {
    stranger.close();
    member.close();
    await exchange.close();
  }
});

Deno.test("ClockExchange bounds a member's flood to its budget, and drops odd sizes and stray answers", async () => {
  const local = new VirtualClock(0);
  const exchange = ClockExchange.open({
    hostname: LOOPBACK,
    port: 0,
    isMember: (address) => address === LOOPBACK,
    local,
    ratePerSecond: 20,
    burst: 16,
  });
  const flooder = Deno.listenDatagram({ transport: "udp", hostname: LOOPBACK, port: 0 });
  const counted = (c: ExchangeCounts) => c.answered + c.rateLimited + c.malformed + c.unexpected;
  try {
    const to = udp(LOOPBACK, exchange.addr.port);
    // In batches of 100 read before the next: a burst past the kernel's receive buffer would be
    // dropped there, unread, and not counted.
    const send = async (n: number) => {
      const before = counted(exchange.counts);
      for (let id = 0; id < n; id++) {
        await flooder.send(encodePacket({ kind: "request", id, t1: id }), to);
      }
      await until(`${n} requests read`, () => counted(exchange.counts) >= before + n);
    };
    for (let batch = 0; batch < 10; batch++) await send(100);
    assert.equal(exchange.counts.answered, 16, "the burst, and not one more while time stands");
    assert.equal(exchange.counts.rateLimited, 984);
    local.advance(500); // 10 more tokens
    await send(100);
    assert.equal(exchange.counts.answered, 26);
    await flooder.send(new Uint8Array(1000), to);
    await flooder.send(encodePacket({ kind: "answer", id: 5, t1: 1, t2: 2, t3: 3, error: 0 }), to);
    await until("an odd size and a stray answer read", () => counted(exchange.counts) === 1102);
    assert.equal(exchange.counts.malformed, 1);
    assert.equal(exchange.counts.unexpected, 1);
  } finally {
    flooder.close();
    await exchange.close();
  }
});

Deno.test("ClockExchange.close() ends a measurement that waits for answers", async () => {
  const exchange = ClockExchange.open({
    hostname: LOOPBACK,
    port: 0,
    isMember: () => true,
    local: new VirtualClock(0),
  });
  const silent = Deno.listenDatagram({ transport: "udp", hostname: LOOPBACK, port: 0 });
  try {
    const peer = { hostname: LOOPBACK, port: (silent.addr as Deno.NetAddr).port };
    const measuring = exchange.measure(peer, { count: 2, waitMs: 600_000 });
    await silent.receive(); // the first request is out and waits
    await exchange.close();
    assert.equal(await measuring, null);
  } finally {
    silent.close();
  }
});

function zero(): ExchangeCounts {
  return { answered: 0, notMember: 0, malformed: 0, rateLimited: 0, unexpected: 0 };
}
