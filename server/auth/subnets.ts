/**
 * Allow lists of addresses and subnets (`oscAllow`, `midiAllow`): senders a
 * transport knows only by their address, let in without pairing. The entries'
 * grammar is the settings' (`protocol/subnets.ts`).
 * @module
 */
import { parseIp, parseSubnets, type Subnet } from "../../protocol/subnets.ts";

export { parseSubnets, type Subnet };

/** Whether `address` is in one of `subnets`. */
export function inSubnet(address: string, subnets: readonly Subnet[]): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  return subnets.some((s) => {
    if (s.bits !== ip.bits) return false;
    const shift = BigInt(s.bits - s.prefix);
    return (s.value >> shift) === (ip.value >> shift);
  });
}
