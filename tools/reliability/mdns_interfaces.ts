/**
 * Probe `mdns_interfaces`: direct unicast queries (RFC 6762 s.5.5) to a
 * service on a machine with two interfaces. The responder has one socket per
 * interface, all bound to 0.0.0.0:5353; a unicast datagram reaches only one
 * of them, whatever interface it came in on, so a socket that dropped sources
 * outside its own subnet left half the network unanswered (issue 30, item 8).
 * The probe makes that machine out of network namespaces of its own: the
 * service's, with two veth interfaces (10.53.1.1/24, 10.53.2.1/24), and one
 * client namespace on each subnet with four addresses, which ask
 * `_app._tcp.local` from ephemeral ports (as `dig -p 5353 @10.53.2.1` does)
 * at 4 queries a second each (under the 5 unicast answers a second per
 * destination) for 5 s (full: 30 s). Every query must be answered, with the
 * address of the interface it was sent to. Local `GET /api/v1/app-state` is
 * timed meanwhile on the service namespace's loopback. Nothing is added to
 * the machine's own namespace, and the namespaces are removed afterwards.
 * Without root (or `ip`), the row is NOT RUN with the reason.
 * @module
 */
import { requireFigures } from "./_figures.ts";
import { denoIn, jsonOf, makeTopology, namespacesUnavailable } from "./_netns.ts";
import { insideDeadlineMs, type InsidePlan } from "./_mdns_inside.ts";
import { NotRun, type Probe, type ProbeContext, type ProbeResult } from "./_types.ts";

/** The `mdns_interfaces` probe. */
export const mdnsInterfaces: Probe = {
  name: "mdns_interfaces",
  summary:
    "a service with two interfaces (network namespaces): unicast queries to 5353 from both subnets, each answered with its interface's address",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const unavailable = await namespacesUnavailable();
  if (unavailable !== null) throw new NotRun(unavailable);
  const topology = await makeTopology(`cueport-${Deno.pid}`, 2, 4);
  try {
    const plan: InsidePlan = { mode: context.mode, subnets: topology.subnets };
    context.log(
      `mdns_interfaces: namespace ${topology.ns}, ` +
        topology.subnets.map((s) => `${s.service}/24 (${s.ns})`).join(", "),
    );
    const child = denoIn(topology.ns, new URL("./_mdns_inside.ts", import.meta.url), [
      JSON.stringify(plan),
    ]);
    const row = await jsonOf<ProbeResult>(
      child,
      "the probe inside its namespace",
      insideDeadlineMs(context.mode),
    );
    context.tally.absorb(row);
    requireFigures(context.tally, row.figures); // the service inside was watched by the harness
    if (row.error !== null) throw new Error(`inside ${topology.ns}: ${row.error}`);
  } finally {
    for (const left of await topology.remove()) {
      context.tally.shortfall(`network namespace left on the machine: ${left}`);
    }
  }
}
