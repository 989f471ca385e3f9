/**
 * UDP 5353 is one port for the whole machine: the discovery tests and the
 * `mdns_flood` probe (run beside the suite by the test command,
 * `tools/test_groups.ts`) take it in turn, by an exclusive lock on one file.
 * A unicast datagram to a port several sockets share reaches one of them
 * only, so a flood beside a discovery test would make both miss answers.
 */

/** The lock file, in the folder of the tests' temp dirs (both test processes find the same one). */
function lockPath(): string {
  const probe = Deno.makeTempDirSync();
  Deno.removeSync(probe);
  return `${probe.replace(/[\\/][^\\/]+$/, "")}/cueport-tests-udp-5353.lock`;
}

/** Runs `fn` while holding UDP 5353 for this test (waits for the holder, if any). */
export async function withMdnsPort<T>(fn: () => Promise<T>): Promise<T> {
  const file = await Deno.open(lockPath(), { create: true, write: true });
  try {
    await file.lock(true);
    return await fn();
  } finally {
    file.close(); // closing releases the lock
  }
}

/** `Deno.test` for a test that binds or floods UDP 5353: the port is held while it runs. */
export function mdnsTest(
  name: string,
  ...rest: [fn: () => Promise<void>] | [options: { ignore: boolean }, fn: () => Promise<void>]
): void {
  const fn = rest.length === 1 ? rest[0] : rest[1];
  const options = rest.length === 1 ? {} : rest[0];
  Deno.test({ name, ...options, fn: () => withMdnsPort(fn) });
}
