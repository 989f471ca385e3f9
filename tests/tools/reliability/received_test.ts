/**
 * Issue 42: every probe says what it sent and what the service received, and misses when
 * either is 0. The pieces that count what the service received, each against what breaks it.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { missedTargets, type ProbeResult } from "../../../tools/reliability/mod.ts";
import { rowFigures, SERVICE_FIGURES } from "../../../tools/reliability/_figures.ts";
import { ServiceRun } from "../../../tools/reliability/_harness.ts";
import { dropClosed, openIdle } from "../../../tools/reliability/_idle_connections.ts";
import { countDatagramsRead } from "../../../tools/reliability/_osc_reads.ts";
import type { RawConnection } from "../../../tools/reliability/_raw_http.ts";
import { Tally } from "../../../tools/reliability/_tally.ts";
import { readBytesOf } from "../../../tools/reliability/_tcp_read.ts";
import { dataDamage } from "../../../tools/reliability/data_damage.ts";
import { countAttempts } from "../../../tools/reliability/page_forgery.ts";
import { messagesRead } from "../../../tools/reliability/slow_ws_client.ts";

/** A bound against a hang only: every wait here ends on an event. */
const HANG_MS = 60_000;

function rowOf(tally: Tally): ProbeResult {
  return { ...tally.result("example", 1), ...rowFigures(tally) };
}

Deno.test("page_forgery: no socket tried, or none answered, is an attack that exercised nothing", () => {
  const none = new Tally();
  countAttempts(none, { tried: 0, answered: 0 });
  assert.deepEqual(missedTargets(rowOf(none)), [
    "0 received by the service of 0 inputs sent: nothing was exercised",
  ]);
  const unanswered = new Tally();
  countAttempts(unanswered, { tried: 14, answered: 0 });
  assert.deepEqual(missedTargets(rowOf(unanswered)), [
    "0 received by the service of 14 inputs sent: nothing was exercised",
  ]);
  // Every socket refused the program, with a status: tried, and the way it should be.
  const refused = new Tally();
  countAttempts(refused, { tried: 14, answered: 14 });
  assert.deepEqual(missedTargets(rowOf(refused)), []);
});

Deno.test("countDatagramsRead() counts what the OSC port read; an unasked count is not measured", () => {
  const tally = new Tally();
  tally.inputs = 500;
  assert.equal(countDatagramsRead(tally, { before: 10, after: 10 }), 0);
  assert.deepEqual(missedTargets(rowOf(tally)), [
    "0 received by the service of 500 inputs sent: nothing was exercised",
  ]);
  const unasked = new Tally();
  unasked.inputs = 500;
  assert.equal(countDatagramsRead(unasked, { before: null, after: 40 }), null);
  assert.deepEqual(missedTargets(rowOf(unasked)), ["what the service received not measured"]);
  const read = new Tally();
  read.inputs = 500;
  assert.equal(countDatagramsRead(read, { before: 10, after: 460 }), 450);
  // A crash restarts the count: what the new one read.
  assert.equal(countDatagramsRead(new Tally(), { before: 900, after: 30 }), 30);
  assert.deepEqual(missedTargets(rowOf(read)), []);
});

Deno.test("readBytesOf() reads what the service took of a connection from ss -tin, less Recv-Q", () => {
  const ss = [
    "ESTAB 4000   0      127.0.0.1:41000 127.0.0.2:50001",
    "\t cubic wscale:7,7 bytes_acked:163 bytes_received:270000 segs_out:20",
    "ESTAB 0      0      127.0.0.1:41000 127.0.0.2:50002",
    "\t cubic wscale:7,7 bytes_acked:163 bytes_received:900 segs_out:20",
  ].join("\n");
  assert.equal(readBytesOf(ss, { address: "127.0.0.2", port: 50001 }), 266_000);
  assert.equal(readBytesOf(ss, { address: "127.0.0.2", port: 50002 }), 900);
  assert.equal(readBytesOf(ss, { address: "127.0.0.2", port: 50003 }), null, "not listed");
  // With a state filter ss prints no state column.
  const filtered = "0 0 127.0.0.1:41000 127.0.0.2:50004\n\t bytes_received:77";
  assert.equal(readBytesOf(filtered, { address: "127.0.0.2", port: 50004 }), 77);
  assert.equal(readBytesOf("", { address: "127.0.0.2", port: 50001 }), null, "ss missing");
});

Deno.test("slow_ws_client: messagesRead() is the flood's whole messages the service took", () => {
  assert.equal(messagesRead({ before: 200, most: 200 + 28 * 1000 + 27 }, 28), 1000);
  assert.equal(messagesRead({ before: 200, most: 200 }, 28), 0, "nothing read of the flood");
  assert.equal(messagesRead({ before: null, most: 5000 }, 28), null, "not asked");
  assert.equal(messagesRead({ before: 200, most: null }, 28), null, "not asked");
});

/** A TCP server on a free loopback port that does `onConnection` with each socket. */
async function server(onConnection: (socket: net.Socket) => void) {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((socket) => {
    sockets.add(socket);
    // A client gone before this side's write (the refusing server's 503, on a machine so busy
    // that the client's connect deadline passed) is an EPIPE here: expected, not a fault. With
    // no listener it was an uncaught error that failed the whole file (CI at load 11).
    socket.on("error", () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as net.AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      srv.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  return { port, close };
}

Deno.test("openIdle() counts as received the connections the server closed, not the ones held", async () => {
  const held: net.Socket[] = [];
  const holding = await server((socket) => held.push(socket));
  const open: RawConnection[] = [];
  try {
    const request = "GET / HTTP/1.1\r\nhost: x\r\n";
    const outcome = await openIdle(
      { port: holding.port, addresses: () => "127.0.0.1", count: 5, request },
      open,
    );
    // Held: in the kernel's backlog or the server's hands, no evidence either way.
    assert.equal(outcome.answered, 0);
    assert.ok(outcome.opened >= 5 && open.length === outcome.opened);
    for (const socket of held.splice(0, 3)) socket.destroy(); // the server's header deadline
    // Each close is an event on its connection; the bound only guards against a hang.
    while (open.filter((c) => c.isClosed).length < 3) {
      const live = open.filter((c) => !c.isClosed);
      const closed = await Promise.race(live.map((c) => c.waitUntil(() => c.isClosed, HANG_MS)));
      assert.ok(closed, "a connection the server closed is seen closed");
    }
    assert.equal(dropClosed(open), 3);
    assert.equal(open.length, outcome.opened - 3);
  } finally {
    for (const c of open) c.destroy();
    for (const socket of held) socket.destroy();
    await holding.close();
  }
  const refusing = await server((socket) => socket.end("HTTP/1.1 503 Service Unavailable\r\n\r\n"));
  try {
    const outcome = await openIdle(
      {
        port: refusing.port,
        addresses: () => "127.0.0.1",
        count: 5,
        request: "GET / HTTP/1.1\r\n",
      },
      open,
    );
    assert.deepEqual(outcome, { opened: 0, refused: 100, answered: 100 });
  } finally {
    await refusing.close();
  }
});

Deno.test("data_damage starts its services through the harness: the row requires what it measures", async () => {
  assert.deepEqual(dataDamage.figures, SERVICE_FIGURES);
  // finish(atRest) leaves the data dir to the caller between the stop and the removal.
  const tally = new Tally();
  tally.inputs = 1; // so the row says only its figures
  const run = await ServiceRun.start(tally);
  const service = run.service;
  const seen: { isRunning: boolean; entries: string[] }[] = [];
  await run.finish((dir) => {
    seen.push({
      isRunning: service.isRunning,
      entries: [...Deno.readDirSync(dir)].map((e) => e.name),
    });
    return Promise.resolve();
  });
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.isRunning, false, "the service stopped first");
  assert.ok(
    seen[0]!.entries.includes("projects"),
    `the data dir as it was left: ${seen[0]!.entries}`,
  );
  assert.deepEqual(missedTargets(rowOf(tally)), []);
  assert.throws(() => Deno.statSync(run.dataDir), Deno.errors.NotFound);
});
