/**
 * Tests that need a program from outside the project (`tools/peers.ts`):
 * `Deno.test({ ...needs("ffmpeg"), name, fn })` skips the test when the
 * program is missing, unless `CUEPORT_TEST_PEERS=required` (CI), where the
 * test runs and fails. `deno task test` prints one line naming what is
 * missing and how to install it.
 */
import { findPeer, type PeerName } from "../peers.ts";

/** True when every peer must be there (CI): a missing one fails its tests. */
export const PEERS_REQUIRED = Deno.env.get("CUEPORT_TEST_PEERS") === "required";

/** `{ ignore }` for `Deno.test`: true when one of `names` is missing (and not required). */
export function needs(...names: PeerName[]): { ignore: boolean } {
  if (PEERS_REQUIRED) return { ignore: false };
  return { ignore: names.some((name) => findPeer(name) === undefined) };
}

/** True when every one of `names` is on this machine. */
export function has(...names: PeerName[]): boolean {
  return names.every((name) => findPeer(name) !== undefined);
}
