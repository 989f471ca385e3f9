/**
 * The asking side of the `mdns_interfaces` probe, run inside a client
 * namespace (`_netns.ts`): from each of its addresses, direct unicast DNS-SD
 * queries to the service's address on port 5353 (RFC 6762 s.5.5), from an
 * ephemeral port as `dig -p 5353 @address` sends them, at a steady rate. An
 * answer counts when it carries the service's `_app._tcp` instance and, as
 * its address, the service's address on this subnet (an answer made for the
 * other interface would name the other subnet's). Prints one JSON line
 * (`AskerReport`).
 *
 * ```sh
 * deno run --allow-net tools/reliability/_mdns_asker.ts '{"target":"10.53.1.1",...}'
 * ```
 * @module
 */
import dgram from "node:dgram";
import packet from "dns-packet";

/** What to ask (the one argument, as JSON). */
export interface AskerPlan {
  /** The service's address on this subnet: queries go there, answers must name it. */
  target: string;
  /** The addresses to ask from (each its own socket). */
  sources: string[];
  /** Queries a second from each source (under the service's 5 unicast answers a second per destination). */
  perSecond: number;
  seconds: number;
  /** How long the service may take to win its names before the first counted query, ms. */
  readyWithinMs: number;
}

/** What the asker saw. */
export interface AskerReport {
  sent: number;
  /** Answered with the instance and this subnet's address. */
  answered: number;
  /** Answered, but with another interface's address or without the instance. */
  wrong: number;
  /** Round trips of the answered queries, ms. */
  latenciesMs: number[];
  /**
   * How long the service took to answer the first query, ms (it probes its names first), or
   * null when it answered none within `readyWithinMs` (the counted queries are sent anyway).
   */
  readyMs: number | null;
  /** A few wrong answers, described. */
  examples: string[];
}

const QUESTION = { name: "_app._tcp.local", type: "PTR" } as const;
/** An answer later than this after the last query is not waited for, ms. */
const GRACE_MS = 2000;

interface Asker {
  socket: dgram.Socket;
  /** When each pending query (by id) was sent. */
  pending: Map<number, number>;
  nextId: number;
}

/** Whether `bytes` answer the query well: the `_app._tcp` instance, and `target` as its address. */
function judge(bytes: Uint8Array, target: string): { id: number; ok: boolean; why: string } {
  let message;
  try {
    message = packet.decode(bytes as Buffer);
  } catch {
    return { id: -1, ok: false, why: "undecodable" };
  }
  const records = [...(message.answers ?? []), ...(message.additionals ?? [])];
  const instance = records.some((r) =>
    r.type === "PTR" && String(r.data).endsWith("._app._tcp.local")
  );
  const addresses = records.filter((r) => r.type === "A").map((r) => String(r.data));
  const ok = instance && addresses.length > 0 && addresses.every((a) => a === target);
  const why = `instance ${instance ? "present" : "missing"}, A ${addresses.join(",") || "none"}`;
  return { id: message.id ?? -1, ok, why };
}

async function openAsker(address: string): Promise<Asker> {
  const socket = dgram.createSocket({ type: "udp4" });
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  return { socket, pending: new Map(), nextId: 1 };
}

function ask(asker: Asker, target: string): number {
  const id = asker.nextId;
  asker.nextId = (asker.nextId % 65535) + 1;
  asker.socket.send(packet.encode({ type: "query", id, questions: [QUESTION] }), 5353, target);
  asker.pending.set(id, performance.now());
  return id;
}

/** Asks from the first source every 250 ms until answered (the service probes its names first). */
async function untilReady(asker: Asker, plan: AskerPlan): Promise<number | null> {
  const started = performance.now();
  let answered = false;
  const listener = () => (answered = true);
  asker.socket.on("message", listener);
  while (!answered && performance.now() - started < plan.readyWithinMs) {
    ask(asker, plan.target);
    await new Promise((r) => setTimeout(r, 250));
  }
  asker.socket.off("message", listener);
  asker.pending.clear();
  const readyMs = answered ? Math.round(performance.now() - started) : null;
  // The warm-up's queries spent some of this source's unicast answers: let the bucket refill.
  await new Promise((r) => setTimeout(r, 2000));
  return readyMs;
}

/** Runs the plan; resolves with the report. */
export async function runAsker(plan: AskerPlan): Promise<AskerReport> {
  const askers = await Promise.all(plan.sources.map(openAsker));
  const report: AskerReport = {
    sent: 0,
    answered: 0,
    wrong: 0,
    latenciesMs: [],
    readyMs: await untilReady(askers[0]!, plan),
    examples: [],
  };
  for (const asker of askers) {
    asker.socket.on("message", (bytes: Uint8Array) => {
      const { id, ok, why } = judge(bytes, plan.target);
      const sentAt = asker.pending.get(id);
      if (sentAt === undefined) return; // a late copy, or another's
      asker.pending.delete(id);
      if (ok) {
        report.answered++;
        report.latenciesMs.push(Math.round((performance.now() - sentAt) * 10) / 10);
      } else {
        report.wrong++;
        if (report.examples.length < 3) report.examples.push(why);
      }
    });
  }
  const started = performance.now();
  const total = Math.round(plan.perSecond * plan.seconds);
  for (let n = 0; n < total; n++) {
    // Evenly spread: query n of each source at n / perSecond seconds.
    const due = started + (n * 1000) / plan.perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    for (const asker of askers) {
      ask(asker, plan.target);
      report.sent++;
    }
  }
  await new Promise((r) => setTimeout(r, GRACE_MS));
  for (const asker of askers) asker.socket.close();
  return report;
}

if (import.meta.main) {
  const plan = JSON.parse(Deno.args[0] ?? "{}") as AskerPlan;
  console.log(JSON.stringify(await runAsker(plan)));
  Deno.exit(0);
}
