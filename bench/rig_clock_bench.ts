/**
 * The rig clock part of `deno task bench`: how far the clock exchange's filtered offset is from
 * the true one (p50, p95, max over `--rounds` bursts of 8), with one clock put 250 ms ahead so the
 * truth is known. On loopback in one process (one clock: the truth is exact); between two
 * processes on loopback (their truth shares the kernel's clock but each reads it through its own
 * `performance.timeOrigin`: this row shows what that adds, tens of microseconds); then, as root,
 * between two network namespaces joined by a veth pair delayed 2 ms +- 1 ms each way
 * (`tc ... netem delay 2ms 1ms` on both ends; where the kernel has no netem, the same delay made
 * by a relay in user space, `relay` below). Without root the namespace row is one `skipped` row.
 * `deno run -A bench/rig_clock_bench.ts relay --listen H --to H:P` runs that relay.
 * @module
 */
import { parseArgs } from "node:util";
import { ClockExchange, epochMonotonicClock, skewedClock } from "../server/rigs/clock/mod.ts";
import {
  judgeRounds,
  measureSeries,
  type SeriesResult,
  type SeriesRounds,
} from "../server/rigs/clock/probe.ts";
import { makeTopology, namespacesUnavailable } from "../tools/reliability/_netns.ts";

const PROBE = new URL("../server/rigs/clock/probe.ts", import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;
const SKEW_MS = 250;
const NETEM = ["delay", "2ms", "1ms"];

/** The exchange between two clocks of this process on loopback, one `SKEW_MS` ahead. */
export async function measureLoopback(rounds: number): Promise<SeriesResult> {
  const isMember = (address: string) => address === "127.0.0.1";
  const ahead = skewedClock(epochMonotonicClock, SKEW_MS);
  const local = epochMonotonicClock;
  const answerer = ClockExchange.open({ hostname: "127.0.0.1", port: 0, isMember, local: ahead });
  const asker = ClockExchange.open({ hostname: "127.0.0.1", port: 0, isMember, local });
  try {
    const peer = { hostname: "127.0.0.1", port: answerer.addr.port };
    return await measureSeries(asker, { peer, local, rounds, expectMs: SKEW_MS });
  } finally {
    await Promise.all([answerer.close(), asker.close()]);
  }
}

/** Starts `script args` with Deno in namespace `ns` (or here, when null); stdout piped. */
function childIn(ns: string | null, script: string, args: string[]): Deno.ChildProcess {
  const deno = [Deno.execPath(), "run", "--unstable-net", "--allow-net", script, ...args];
  const [command, ...rest] = ns === null ? deno : ["ip", "netns", "exec", ns, ...deno];
  return new Deno.Command(command!, { args: rest, stdout: "piped", stderr: "inherit" }).spawn();
}

/** A child's output read line by line: `next()` is its next line, or null at its end. */
function linesOf(child: Deno.ChildProcess): { next(): Promise<string | null> } {
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  return {
    async next() {
      while (!text.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) return null;
        text += value;
      }
      const [line, ...rest] = text.split("\n");
      text = rest.join("\n");
      return line!;
    },
  };
}

/** The port a child printed first (`{"port": N}`). */
async function portOf(lines: { next(): Promise<string | null> }): Promise<number> {
  const line = await lines.next();
  if (line === null) throw new Error("a child exited before it was ready");
  return (JSON.parse(line) as { port: number }).port;
}

async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch {
    // exited already
  }
  await child.status;
}

/** Where the two probes run: namespaces (null: here) and addresses. */
export interface ProbePlaces {
  readonly answerNs: string | null;
  readonly answer: string;
  readonly askNs: string | null;
  readonly ask: string;
  /** A relay in the answerer's namespace, at this address, delays the link (see `relay`). */
  readonly relayAt?: string;
}

/**
 * The exchange between two probe processes, the answerer `SKEW_MS` ahead of its own clock. The
 * truth is that skew plus what the two processes' clocks disagree by (`wallClockGap`, each read
 * as the measuring ends): `clockShift` in the result, most often a few microseconds.
 */
export async function measureProcesses(
  rounds: number,
  at: ProbePlaces,
): Promise<SeriesResult & { clockShift: number }> {
  const children: Deno.ChildProcess[] = [];
  try {
    // Behind a relay, the answerer hears the relay (on its own loopback), the asker the relay.
    const relayFrom = at.relayAt === undefined ? at.ask : at.answer;
    const answerer = childIn(at.answerNs, PROBE, [
      ...["answer", "--host", at.answer, "--members", relayFrom, "--skew", String(SKEW_MS)],
    ]);
    children.push(answerer);
    const answers = linesOf(answerer);
    let peer = `${at.answer}:${await portOf(answers)}`;
    if (at.relayAt !== undefined) {
      const relay = childIn(at.answerNs, SELF, ["relay", "--listen", at.relayAt, "--to", peer]);
      children.push(relay);
      peer = `${at.relayAt}:${await portOf(linesOf(relay))}`;
    }
    const asker = childIn(at.askNs, PROBE, [
      ...["measure", "--host", at.ask, "--members", peer.split(":")[0]!, "--peer", peer],
      ...["--rounds", String(rounds), "--expect", String(SKEW_MS)],
    ]);
    const out = await new Response(asker.stdout).text();
    if (!(await asker.status).success) throw new Error(`the measuring probe failed: ${out}`);
    const measured = JSON.parse(out.trim().split("\n").pop()!) as {
      series: SeriesRounds;
      wallGap: number;
    };
    await stop(answerer);
    const said = await answers.next();
    if (said === null) throw new Error("the answering probe ended without its wall clock gap");
    const clockShift = (JSON.parse(said) as { wallGap: number }).wallGap - measured.wallGap;
    return { ...judgeRounds(measured.series, SKEW_MS + clockShift), clockShift };
  } finally {
    for (const child of children) await stop(child);
  }
}

/** How the namespaces' link was delayed: by netem, or (no netem in the kernel) by the relay. */
export type DelayedBy = "netem" | "relay";

/** Adds netem to each `[namespace, device]`; its error when it cannot (no netem in the kernel). */
async function addNetem(ends: ReadonlyArray<readonly [string, string]>): Promise<string | null> {
  for (const [ns, dev] of ends) {
    const tc = await new Deno.Command("ip", {
      args: ["netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "netem", ...NETEM],
      stderr: "piped",
    }).output();
    if (!tc.success) return new TextDecoder().decode(tc.stderr).trim();
  }
  return null;
}

/**
 * The exchange between two network namespaces joined by a veth pair, delayed 2 ms +- 1 ms each
 * way: by netem on both ends, or where the kernel has none (this machine's: "Specified qdisc kind
 * is unknown") by a relay in the answerer's namespace. Needs root (`namespacesUnavailable`).
 */
export async function measureNamespaces(
  rounds: number,
): Promise<SeriesResult & { clockShift: number; delayedBy: DelayedBy }> {
  const topology = await makeTopology(`cueport-clk-${Deno.pid}`, 1, 1);
  try {
    const subnet = topology.subnets[0]!;
    const noNetem = await addNetem([[topology.ns, "svc1"], [subnet.ns, "cli1"]]);
    const places = { answerNs: topology.ns, askNs: subnet.ns, ask: subnet.clients[0]! };
    if (noNetem === null) {
      const result = await measureProcesses(rounds, { ...places, answer: subnet.service });
      return { ...result, delayedBy: "netem" };
    }
    const result = await measureProcesses(rounds, {
      ...places,
      answer: "127.0.0.1",
      relayAt: subnet.service,
    });
    return { ...result, delayedBy: "relay" };
  } finally {
    await topology.remove();
  }
}

/**
 * netem's `delay 2ms 1ms` in user space: datagrams to `listen` go on to `to` (from this
 * relay's loopback socket) and the answers back to whoever sent last, each way after 1-3 ms
 * (uniform; the timers' granularity adds to it, as a busy network's queues do). Until SIGTERM.
 */
async function relay(listen: string, to: string): Promise<void> {
  const [hostname, port] = to.split(":");
  const target = { transport: "udp" as const, hostname: hostname!, port: Number(port) };
  const front = Deno.listenDatagram({ transport: "udp", hostname: listen, port: 0 });
  const back = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  let client: Deno.Addr | null = null;
  const later = (fn: () => void) => setTimeout(fn, 1 + 2 * Math.random());
  const pump = async (from: Deno.DatagramConn, on: (data: Uint8Array, addr: Deno.Addr) => void) => {
    try {
      for await (const [data, addr] of from) on(data.slice(), addr);
    } catch {
      // closed
    }
  };
  const pumps = [
    pump(front, (data, addr) => {
      client = addr;
      later(() => back.send(data, target).catch(() => {}));
    }),
    pump(back, (data) => {
      const to = client;
      if (to !== null) later(() => front.send(data, to).catch(() => {}));
    }),
  ];
  console.log(JSON.stringify({ port: (front.addr as Deno.NetAddr).port }));
  const done = Promise.withResolvers<void>();
  Deno.addSignalListener("SIGTERM", done.resolve);
  await done.promise;
  front.close();
  back.close();
  await Promise.all(pumps);
}

function row(name: string, r: SeriesResult | string): string {
  if (typeof r === "string") return `| ${name} | skipped: ${r} | | |`;
  const [e, est] = [r.offsetError, r.estimatedError];
  return `| ${name} | ${e.p50} / ${e.p95} / ${e.max} | ${est.p50} / ${est.max} | ` +
    `${r.answered}/${r.rounds}, ${r.withinEstimate} within |`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: { rounds: { type: "string", default: "100" } },
  });
  const rounds = Number(values.rounds);
  console.log(`\nCueport rig clock benchmark (${rounds} bursts of 8, one clock 250 ms ahead)\n`);
  console.log(
    "| exchange | offset error p50 / p95 / max, ms | estimated error p50 / max, ms | " +
      "answered, true error within the estimate |",
  );
  console.log("| --- | --- | --- | --- |");
  console.log(row("loopback, one process", await measureLoopback(rounds)));
  const here = { answerNs: null, answer: "127.0.0.1", askNs: null, ask: "127.0.0.1" };
  console.log(row("loopback, two processes", await measureProcesses(rounds, here)));
  const netns = await namespacesUnavailable() ?? await measureNamespaces(rounds);
  const how = typeof netns === "string" ? "" : netns.delayedBy === "netem" ? ", netem" : ", relay";
  console.log(row(`two namespaces, delay 2 ms +- 1 ms each way${how}`, netns));
  console.log(`\nload average: ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}

if (import.meta.main) {
  if (Deno.args[0] === "relay") {
    const { values } = parseArgs({
      args: Deno.args.slice(1),
      options: { listen: { type: "string" }, to: { type: "string" } },
    });
    await relay(values.listen!, values.to!);
  } else await main();
}
