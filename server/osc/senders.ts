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
import { inSubnet, parseSubnets, type Subnet } from "../auth/subnets.ts";

export { parseSubnets } from "../auth/subnets.ts";

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
