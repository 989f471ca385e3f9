/**
 * Who may play the show over MIDI. MIDI carries no token, so a source is
 * known by its address, as an OSC sender is: a source on this machine (a
 * local port, a session participant on 127.0.0.1/::1) is local, exempt under
 * the policy's rule (`Policy.exempted`); addresses and subnets of the setting
 * `midiAllow` let network participants in (never a local port, whatever its name); any other is refused and listed as a request the
 * operator approves (`cueport midi approve`, `POST /api/v1/midi/approvals/:id`),
 * which registers a device of origin `midi` bound to its address (`local:<port name>` for a
 * local port: `sourceKey`) in the one
 * device registry, listed and revoked like every device. The network session
 * asks `admit` before it accepts an invitation.
 * @module
 */
import type { MidiPendingRequest } from "../../protocol/midi.ts";
import type { Grant } from "../auth/mod.ts";
import { isLocalAddress } from "../auth/mod.ts";
import { type DeviceRegistry, newDeviceId } from "../auth/devices.ts";
import { inSubnet, parseSubnets, type Subnet } from "../auth/subnets.ts";
import type { Scope } from "../auth/tokens.ts";
import { CueportError, type Policy } from "../core/mod.ts";
import type { MidiSource } from "./messages.ts";

/** A source waiting for the operator's approval (`protocol/midi.ts`). */
export type MidiRequest = MidiPendingRequest;

/** What decides who may send MIDI. */
export interface MidiAdmissionOptions {
  devices: DeviceRegistry;
  /** The one policy: its localhost exemption comes first. */
  policy: Pick<Policy, "exempted">;
  /** Addresses and subnets let in without approval (setting midiAllow). */
  allow: readonly string[];
  /** Where a refusal and an approval are told. */
  log?: ((message: string) => void) | undefined;
}

/** Requests kept at most: past it, the oldest goes (a flood of invitations stays bounded). */
export const MAX_MIDI_REQUESTS = 32;

/** Sources of `midiAllow`, and approved ones unless approved with less, may read and control. */
const ALLOWED_SCOPES: readonly Scope[] = ["view", "control"];

/** Whether a source is on this machine: a local port, or a participant on loopback. */
export function isLocalSource(source: MidiSource): boolean {
  return source.kind === "local" || isLocalAddress(source.address);
}

/**
 * What a source's approval is stored under: a participant's address, or `local:<name>` for a
 * local port, so a port named like a network device's address never takes its grant (a
 * network address never starts with `local:`).
 */
export function sourceKey(source: MidiSource): string {
  return source.kind === "local" ? `local:${source.name}` : source.address;
}

/** The sources let in, and those waiting for approval. */
export class MidiAdmission {
  #o: MidiAdmissionOptions;
  #subnets: Subnet[];
  #requests = new Map<string, MidiRequest>();

  /**
   * Builds the rule.
   * @throws {Error} for a bad midiAllow entry
   */
  constructor(options: MidiAdmissionOptions) {
    this.#o = options;
    this.#subnets = parseSubnets(options.allow, "midiAllow");
  }

  /** The grant a source acts under, or null when it must be approved first. */
  grantOf(source: MidiSource): Grant | null {
    const exempt = this.#o.policy.exempted({ isLocal: isLocalSource(source) });
    if (exempt) return exempt;
    const key = sourceKey(source);
    const device = this.#o.devices.list().find((d) => d.origin === "midi" && d.address === key);
    if (device) return { device: device.name, deviceId: device.deviceId, scopes: device.scopes };
    if (source.kind === "rtp" && inSubnet(source.address, this.#subnets)) {
      return { device: `midiAllow ${source.address}`, scopes: ALLOWED_SCOPES };
    }
    return null;
  }

  /**
   * Whether a source is let in (the `admit` option of the network session);
   * a refused one is listed as a request for the operator, once per address.
   */
  admit(source: MidiSource): boolean {
    if (this.grantOf(source) !== null) return true;
    const address = sourceKey(source);
    const known = [...this.#requests.values()].find((r) => r.address === address);
    if (known) return false;
    if (this.#requests.size >= MAX_MIDI_REQUESTS) {
      this.#requests.delete(this.#requests.keys().next().value!);
    }
    const requestId = `midi-${crypto.randomUUID().slice(0, 8)}`;
    const name = source.name.slice(0, 100) || `MIDI ${source.address}`;
    this.#requests.set(requestId, {
      requestId,
      address,
      name,
      requestedAt: new Date().toISOString(),
    });
    this.#o.log?.(
      `MIDI from ${address} (${name}) refused: approve it with cueport midi approve ${requestId}`,
    );
    return false;
  }

  /** Sources waiting for approval, oldest first. */
  pending(): MidiRequest[] {
    return [...this.#requests.values()];
  }

  /**
   * Approves a waiting source, or refuses it (`approve` false): an approved
   * one becomes a device of origin `midi` bound to its address (replacing an
   * earlier MIDI device of that address).
   * @throws {CueportError} NOT_FOUND when no such request waits
   */
  async decide(
    requestId: string,
    approve: boolean,
    scopes: readonly Scope[] = ALLOWED_SCOPES,
  ): Promise<{ deviceId: string | null }> {
    const request = this.#requests.get(requestId);
    if (!request) {
      throw new CueportError(
        "NOT_FOUND",
        `No MIDI request "${requestId}" is waiting: GET /api/v1/midi lists them`,
      );
    }
    this.#requests.delete(requestId);
    if (!approve) return { deviceId: null };
    const devices = this.#o.devices;
    const earlier = devices.list().filter((d) =>
      d.origin === "midi" && d.address === request.address
    );
    const deviceId = newDeviceId();
    await devices.add({
      deviceId,
      name: request.name,
      scopes: [...scopes],
      tokenId: `midi-${crypto.randomUUID()}`, // no token is ever issued: known by its address
      pairedAt: new Date().toISOString(),
      address: request.address,
      origin: "midi",
    });
    for (const device of earlier) await devices.revoke(device.deviceId);
    this.#o.log?.(`MIDI source ${request.address} approved as ${deviceId}`);
    return { deviceId };
  }
}
