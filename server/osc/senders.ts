/**
 * Who may send OSC. OSC carries no token, so a sender is known by its
 * address: senders on 127.0.0.1/::1 are local (exempt like local HTTP
 * clients, unless `localhostAuthExempt` is off: the policy decides it,
 * `Policy.exempted`); addresses and subnets of
 * the setting `oscAllow` are let in; any other sender pairs with
 * `/connect <otp> <deviceName>`, which registers an OSC device bound to its
 * address (any source port: desks send from a new port after each start) in
 * the one device registry, listed and revoked like every device.
 * @module
 */
import type { Grant } from "../auth/mod.ts";
import type { DeviceRegistry } from "../auth/devices.ts";
import type { TokenAuthenticator } from "../auth/token_authenticator.ts";
import type { Scope } from "../auth/tokens.ts";
import { CueportError } from "../core/mod.ts";

/** What decides who may send. */
export interface SendersOptions {
  devices: DeviceRegistry;
  authenticator: TokenAuthenticator;
  /** Addresses and subnets (`192.168.1.0/24`, `fd00::/8`) let in without pairing (setting oscAllow). */
  allow: readonly string[];
}

/** The input of the `pair` operation, as `/connect` gives it. */
export interface PairInput {
  otp: string;
  deviceName: string;
  scopes: Scope[];
}

/** Senders of `oscAllow` may read and control. */
const ALLOWED_SCOPES: readonly Scope[] = ["view", "control"];

/** An address as a number and its width, or null when it is no IP address. */
function parseIp(text: string): { value: bigint; bits: number } | null {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) {
    const parts = text.split(".").map(Number);
    if (parts.some((p) => p > 255)) return null;
    return { value: parts.reduce((n, p) => (n << 8n) | BigInt(p), 0n), bits: 32 };
  }
  if (!text.includes(":")) return null;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(text);
  if (mapped) return parseIp(mapped[1]!);
  const [head, tail, extra] = text.split("::");
  if (extra !== undefined) return null;
  const groups = (s: string | undefined) => (s ? s.split(":") : []);
  const left = groups(head);
  const right = groups(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const all = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...right];
  let value = 0n;
  for (const g of all) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    value = (value << 16n) | BigInt(parseInt(g, 16));
  }
  return { value, bits: 128 };
}

/** A subnet rule: `10.0.0.0/8`, `fd00::/8` or one address. */
interface Subnet {
  value: bigint;
  bits: number;
  prefix: number;
}

/**
 * Parses `oscAllow` entries.
 * @throws {Error} naming the bad entry
 */
export function parseSubnets(entries: readonly string[]): Subnet[] {
  return entries.map((entry) => {
    const [address, prefixText] = entry.split("/");
    const ip = parseIp(address!.trim());
    const prefix = prefixText === undefined ? ip?.bits : Number(prefixText);
    if (
      !ip || prefix === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > ip.bits
    ) {
      throw new Error(`oscAllow: "${entry}" is not an address or subnet such as 192.168.1.0/24`);
    }
    return { ...ip, prefix };
  });
}

function inSubnet(address: string, subnets: readonly Subnet[]): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  return subnets.some((s) => {
    if (s.bits !== ip.bits) return false;
    const shift = BigInt(s.bits - s.prefix);
    return (s.value >> shift) === (ip.value >> shift);
  });
}

/** The senders let in, by address. */
export class Senders {
  #o: SendersOptions;
  #subnets: Subnet[];
  /** Paired OSC devices by address, built from the registry when it changes. */
  #byAddress: Map<string, { deviceId: string; name: string; scopes: Scope[] }> | null = null;

  /**
   * Builds the rule.
   * @throws {Error} for a bad oscAllow entry
   */
  constructor(options: SendersOptions) {
    this.#o = options;
    this.#subnets = parseSubnets(options.allow);
  }

  /**
   * The grant of a paired OSC device or an oscAllow address, or null. The
   * localhost exemption is the policy's (`Policy.exempted`), asked first.
   */
  grantOf(address: string): Grant | null {
    this.#byAddress ??= new Map(
      this.#o.devices.list().filter((d) => d.origin === "osc").map((d) => [d.address, d]),
    );
    const device = this.#byAddress.get(address);
    if (device) return { device: device.name, deviceId: device.deviceId, scopes: device.scopes };
    if (inSubnet(address, this.#subnets)) {
      return { device: `oscAllow ${address}`, scopes: ALLOWED_SCOPES };
    }
    return null;
  }

  /** The registry changed (a device revoked): look devices up again. */
  forget(): void {
    this.#byAddress = null;
  }

  /**
   * Pairs the sender at `address` with a one-time code, by `pairWith` (the
   * catalog's `pair` operation, run through the one policy): an OSC device
   * bound to that address replaces any earlier OSC device of the same address.
   * @throws {CueportError} AUTHENTICATION_FAILED or RATE_LIMITED (the code's limits),
   * INVALID_MESSAGE, and the refusals of the policy (API_ACCESS_DENIED)
   */
  async pair(
    otp: string,
    address: string,
    name: string,
    scopes: Scope[],
    pairWith: (input: PairInput) => Promise<{ deviceId: string; scopes: Scope[] }>,
  ): Promise<{ deviceId: string; scopes: Scope[] }> {
    if (!/^\d{6}$/.test(otp)) {
      throw new CueportError("INVALID_MESSAGE", "Invalid args[0] (otp): must be the 6-digit code", {
        field: "args[0]",
      });
    }
    const earlier = this.#o.devices.list().filter((d) =>
      d.origin === "osc" && d.address === address
    );
    const pairing = await pairWith({ otp, deviceName: name, scopes });
    for (const device of earlier) await this.#o.devices.revoke(device.deviceId);
    this.forget();
    return { deviceId: pairing.deviceId, scopes: pairing.scopes };
  }
}
