/**
 * The OSC part of `deno task bench`: a stream of `/control/A` from one
 * sender at 20,000 messages per second (the service's count of datagrams
 * read shows none was lost; the last value must read back over HTTP), the
 * reply round trip of one message at a time, and fan-out of one change to
 * 100 subscribers. Cueport runs as its own process; peers run here.
 * @module
 */
import { receiveBufferBytes } from "../server/osc/receive_buffer.ts";
import { parseArgs } from "node:util";
import * as osc from "osc-min";
import { startCueport } from "./_cueport.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rate: { type: "string", default: "20000" },
    seconds: { type: "string", default: "3" },
    subscribers: { type: "string", default: "100" },
  },
});
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const SUBSCRIBERS = Number(values.subscribers);
/** How far behind its schedule the stream's sender may catch up at full speed. */
const CATCH_UP_MS = 2;
const here = (path: string) => new URL(path, import.meta.url).pathname;

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

function encode(address: string, args: osc.OscArgOrArrayInput[]): Uint8Array<ArrayBuffer> {
  const view = osc.toBuffer({ address, args });
  return new Uint8Array(view.buffer as ArrayBuffer, view.byteOffset, view.byteLength);
}

/** A UDP peer that hands every message it receives to `on`. */
function peer(on: (m: osc.OscMessageOutput) => void) {
  const socket = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  const done = (async () => {
    const buffer = new Uint8Array(65_536);
    try {
      while (true) {
        const [data] = await socket.receive(buffer);
        const packet = osc.fromBuffer(data);
        if (packet.oscType === "message") on(packet);
      }
    } catch {
      // closed
    }
  })();
  return { socket, done };
}

const dataDir = await Deno.makeTempDir({ prefix: "cueport-oscbench-" });
const cueport = await startCueport(dataDir);
const target = { transport: "udp" as const, hostname: "127.0.0.1", port: cueport.ports.osc };
const rows: Array<{ name: string; value: string; target: string }> = [];

try {
  // 1. The stream: RATE messages a second, no reply asked (a desk's fader), twice: at once after
  // the start (every process still compiling its code) and again. The service's count of
  // datagrams read (the /ping reply) tells whether any was lost, the last value read back
  // whether the last one was applied. The datagram is encoded once, its float rewritten before
  // each send: on this machine the sender shares the service's cores, and a desk's encoder is
  // not what is measured.
  const total = RATE * SECONDS;
  let pinged = (_: Record<string, number>) => {};
  const sender = peer((m) => {
    if (m.address === "/reply/ping") {
      pinged(JSON.parse((m.args[0] as { value: string }).value).data);
    }
  });
  const ping = async () => {
    const answer = new Promise<Record<string, number>>((resolve) => (pinged = resolve));
    await sender.socket.send(encode("/ping", []), target);
    return await answer;
  };
  const http = `http://127.0.0.1:${cueport.ports.http}/api/v1`;
  const projects = await (await fetch(`${http}/projects`)).json();
  const activeId = projects.projects.find((p: { active: boolean }) => p.active)?.projectId;
  const kernelBuffer = `kernel UDP receive buffer: ${
    Math.round((receiveBufferBytes() ?? 0) / 1024)
  } KiB`;
  for (const [round, when] of [[0, "just after the start"], [1, "again"]] as const) {
    const first = round * total;
    // One datagram, its float rewritten before each send (the last send is done by then).
    const datagram = encode("/control/A", [{ type: "float", value: 0 }]);
    const value = new DataView(datagram.buffer, datagram.byteLength - 4);
    const before = await ping();
    const start = performance.now();
    // A sender that was held up (it shares the cores) moves its schedule on rather than
    // catching up at full speed: a burst of hundreds at once is not 20,000 a second.
    let slid = 0;
    for (let i = 1; i <= total; i++) {
      const ahead = start + slid + (i / RATE) * 1000 - performance.now();
      if (ahead < -CATCH_UP_MS) slid -= ahead + CATCH_UP_MS;
      if (ahead > 2) await new Promise((r) => setTimeout(r, ahead));
      value.setFloat32(0, first + i);
      await sender.socket.send(datagram, target);
    }
    const sentIn = (performance.now() - start) / 1000;
    let last: number | undefined;
    for (const deadline = performance.now() + 10_000; performance.now() < deadline;) {
      last = (await (await fetch(`${http}/projects/${activeId}/playstate`)).json()).controls?.A;
      if (last === first + total) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const appliedIn = (performance.now() - start) / 1000;
    const after = await ping();
    const arrived = after.datagrams! - before.datagrams! - 1; // less the second ping
    const failed = after.failed! - before.failed!;
    rows.push({
      name: `/control/A stream from one sender, ${RATE}/s for ${SECONDS} s, ${when}`,
      value: `sent ${total} in ${sentIn.toFixed(2)} s (${Math.round(total / sentIn)}/s); ` +
        `${arrived} arrived (${total - arrived} lost), ${failed} failed; last value ${last} ` +
        `${last === first + total ? "applied" : "NOT applied"} ${
          appliedIn.toFixed(2)
        } s after the first`,
      target: `${RATE}/s, none lost, last applied (${kernelBuffer}; docs/osc.md)`,
    });
  }
  sender.socket.close();
  await sender.done;

  // 2. Round trip: one message at a time.
  let answered = () => {};
  const one = peer(() => answered());
  const rtt: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const got = new Promise<void>((resolve) => (answered = resolve));
    const t = performance.now();
    await one.socket.send(encode("/control/B", [{ type: "float", value: i }, "reply"]), target);
    await got;
    if (i >= 200) rtt.push(performance.now() - t);
  }
  rows.push({
    name: "reply round trip (/control/B with reply, one at a time)",
    value: `p50 ${pct(rtt, 0.5).toFixed(2)} ms, p99 ${pct(rtt, 0.99).toFixed(2)} ms`,
    target: "p99 < 2 ms",
  });

  // 3. Fan-out: SUBSCRIBERS subscribers of /control/C, one change at a time.
  let value = 0;
  let waiting = 0;
  let allHave = () => {};
  const subscribers = Array.from({ length: SUBSCRIBERS }, () =>
    peer((m) => {
      if (m.address === "/control/C" && (m.args[0] as { value: number }).value === value) {
        if (--waiting === 0) allHave();
      }
    }));
  let subscribed = 0;
  const acks = subscribers.map((s) =>
    s.socket.send(encode("/subscribe", ["/control/C"]), target).then(() => subscribed++)
  );
  await Promise.all(acks);
  await new Promise((r) => setTimeout(r, 200)); // the subscriptions' own replies settle
  const arrivals: number[] = [];
  for (let round = 1; round <= 40; round++) {
    value = round;
    waiting = SUBSCRIBERS;
    const have = new Promise<void>((resolve) => (allHave = resolve));
    const t = performance.now();
    await one.socket.send(encode("/control/C", [{ type: "float", value }]), target);
    await Promise.race([have, new Promise((r) => setTimeout(r, 2000))]);
    if (round > 5) arrivals.push(performance.now() - t);
  }
  rows.push({
    name: `fan-out of one change to ${SUBSCRIBERS} subscribers (time until the last has it)`,
    value: `p50 ${pct(arrivals, 0.5).toFixed(1)} ms, p99 ${
      pct(arrivals, 0.99).toFixed(1)
    } ms (includes the 5 ms coalescing window)`,
    target: "p99 < 25 ms",
  });
  for (const s of [...subscribers, one]) s.socket.close();
  await Promise.all([...subscribers, one].map((s) => s.done));
} finally {
  await cueport.stop();
  await Deno.remove(dataDir, { recursive: true });
}

console.log("\nCueport OSC benchmark (loopback)\n");
console.log("| scenario | measured | target |");
console.log("| --- | --- | --- |");
for (const r of rows) console.log(`| ${r.name} | ${r.value} | ${r.target} |`);
await Deno.mkdir(here("./results"), { recursive: true });
const file = here(`./results/osc-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
await Deno.writeTextFile(
  file,
  JSON.stringify({ at: new Date().toISOString(), rows }, null, 2) + "\n",
);
console.log(`\nwritten to ${file}`);
