/**
 * What the rigs' tests against one loopback etcd share (`tests/server/rigs/*_test.ts`): their
 * test options, the etcd with a client and a temp dir for the length of a test, and the wait
 * until two rigs' action watches are up.
 * @module
 */
import { GatewayEtcd } from "../../server/rigs/etcd_gateway.ts";
import type { GroupMember } from "../../protocol/rigs.ts";
import { type LoopbackEtcd, startLoopbackEtcd } from "./etcd_cluster.ts";
import { needs } from "./peers.ts";
import { until } from "./until.ts";

/**
 * The options of a test against a loopback etcd: skipped without etcd (unless required); its
 * etcd child and the client's sockets outlive the test's own ops, so the sanitizers are off.
 */
export const LOOPBACK_ETCD_TEST: { ignore: boolean; sanitizeResources: false; sanitizeOps: false } =
  { ...needs("etcd"), sanitizeResources: false, sanitizeOps: false };

/** What `withLoopbackEtcd` gives its body. */
export interface LoopbackSetup {
  solo: LoopbackEtcd;
  /** A client of `solo`. */
  etcd: GatewayEtcd;
  /** A temp dir, removed after. */
  dir: string;
}

/**
 * Runs `body` with a loopback etcd, a client of it (`timeoutMs`, default 2 s) and a temp dir;
 * stops the etcd and removes the dir after, whatever happens.
 * @example
 * ```ts
 * await withLoopbackEtcd(async ({ etcd, dir }) => {
 *   await etcd.put("/cueport/t/x", "{}");
 * });
 * ```
 */
export async function withLoopbackEtcd(
  body: (setup: LoopbackSetup) => Promise<void>,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const solo = await startLoopbackEtcd();
  const etcd = new GatewayEtcd([solo.url], { timeoutMs: options.timeoutMs ?? 2000 });
  const dir = await Deno.makeTempDir();
  try {
    await body({ solo, etcd, dir });
  } finally {
    await solo.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Resolves once every one of `rigs`' action watches is up: once each delivered an entry put
 * (on group `t`'s actions, at `url`) after it started, putting one until so.
 */
export async function untilActionsWatched(
  url: string,
  rigs: readonly { actions: { revision: number } }[],
): Promise<void> {
  const probe = new GatewayEtcd([url]);
  let put = 0;
  await until("every rig watching", async () => {
    const seen = put > 0 && rigs.every((rig) => rig.actions.revision >= put);
    if (!seen) put = await probe.put("/cueport/t/actions/probe", "{}");
    return seen;
  });
}

/** A member as a status lists it: rig `name` on the loopback at `port`, as `self` sees it ("a" leads). */
export function member(name: string, port: number, self: string): GroupMember {
  return {
    name,
    addresses: ["127.0.0.1"],
    ports: { http: port },
    version: "0",
    startedAt: "",
    seenAt: "",
    isLeader: name === "a",
    isThisRig: name === self,
    lastSeenMs: null,
  };
}
