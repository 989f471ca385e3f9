/**
 * Pair once for the whole group (docs/rigs.md, "Clients"): a device paired with a code on one rig
 * is accepted by every rig of its group, and a device revoked on one rig is refused by all.
 *
 * Each rig keeps its own signing key; what the group shares in etcd, under
 * `/cueport/<group>/devices/<deviceId>`, is each device's public record: its id, name, scopes,
 * token id, the rig that paired it, and the SHA-256 of its token (`Device.tokenHash`), never a
 * key or a token. Every rig copies the records into its own registry (`devices.json`), and accepts
 * a token it did not sign when its hash is the record's (`TokenAuthenticator`): a reader of etcd
 * learns who is paired but cannot make a token; a writer to etcd could add a device, as it could
 * add edits and actions already, so etcd must be reachable by the rigs only (docs/security.md).
 * A revocation deletes the record: every rig's watch revokes its copy and closes its sockets.
 * @module
 */
import type { Logger } from "../log.ts";
import { pause } from "./_pause.ts";
import type { Etcd, Kv, WatchEvent } from "./etcd.ts";
import type { RigGroup } from "./group.ts";
import { groupKeys } from "./keys.ts";

/** A paired device, as the registry (`server/auth/devices.ts`) keeps it: what is shared of it. */
export interface PairedDevice {
  deviceId: string;
  name: string;
  scopes: ("view" | "control" | "edit")[];
  tokenId: string;
  pairedAt: string;
  address: string;
  origin?: "pairing" | "approval" | "osc" | "midi";
  tokenHash?: string;
  pairedOn?: string;
}

/** The device registry, as the sharing uses it (`server/auth/devices.ts`'s `DeviceRegistry`). */
export interface SharedRegistry {
  list(): PairedDevice[];
  get(deviceId: string): PairedDevice | undefined;
  add(device: PairedDevice): Promise<void>;
  revoke(deviceId: string): Promise<boolean>;
  onrevoke: (deviceId: string) => void;
}

/** What the sharing works with. */
export interface SharedPairingsOptions {
  etcd: Etcd;
  group: string;
  /** This rig's name (`Device.pairedOn` of the devices it pairs). */
  rig: string;
  devices: SharedRegistry;
  /** The authenticator (`TokenAuthenticator`): told of each device paired with a code. */
  authenticator: { onpair: (device: PairedDevice) => Promise<void> };
  log: Logger;
}

/** The fields of a device the group shares (no address, no use times). */
type SharedDevice = Required<
  Pick<
    PairedDevice,
    "deviceId" | "name" | "scopes" | "tokenId" | "pairedAt" | "tokenHash" | "pairedOn"
  >
>;

/** The etcd prefix of a group's shared devices. */
export function devicesPrefix(group: string): string {
  return `${groupKeys(group).root}devices/`;
}

/** A shared record of etcd, or null when it is not one. */
function recordOf(kv: Kv): SharedDevice | null {
  try {
    const d = JSON.parse(kv.value) as SharedDevice;
    const ok = [d.deviceId, d.name, d.tokenId, d.pairedAt, d.tokenHash, d.pairedOn]
      .every((f) => typeof f === "string") && Array.isArray(d.scopes);
    return ok ? d : null;
  } catch {
    return null;
  }
}

/** Shares a rig's pairings with its group, and takes the group's (see the module). */
export class SharedPairings {
  readonly #o: SharedPairingsOptions;
  readonly #prefix: string;
  readonly #stopped = new AbortController();
  /** The device ids etcd holds now, as this rig last saw them. */
  #shared = new Set<string>();
  #revision = 0;
  /** The watch's batches, applied one after the other. */
  #applying: Promise<void> = Promise.resolve();

  /** Hooks into the registry and the authenticator; nothing is read before `start`. */
  constructor(options: SharedPairingsOptions) {
    this.#o = options;
    this.#prefix = devicesPrefix(options.group);
    options.authenticator.onpair = (device) => this.#publish(device);
    const closeSockets = options.devices.onrevoke;
    options.devices.onrevoke = (deviceId) => {
      closeSockets(deviceId);
      void this.#unshare(deviceId);
    };
  }

  /** Reads the group's devices (retrying while etcd does not answer), then follows them. */
  async start(): Promise<void> {
    while (!this.#stopped.signal.aborted) {
      try {
        await this.#sync();
        break;
      } catch (error) {
        this.#o.log("warn", `Shared pairings: etcd did not answer (${error}); retrying`);
        await pause(1000, this.#stopped.signal);
      }
    }
    void this.#watchLoop();
  }

  /** Stops following the group's devices. */
  stop(): void {
    this.#stopped.abort();
  }

  /**
   * Etcd's devices made this rig's: copies of the ones it lacks; its devices whose record is gone
   * (revoked while it was away) revoked; its own paired while etcd did not answer, published.
   */
  async #sync(): Promise<void> {
    const { kvs, revision } = await this.#o.etcd.range(this.#prefix, { prefix: true });
    this.#revision = revision;
    const records = kvs.map(recordOf).filter((r) => r !== null);
    this.#shared = new Set(records.map((r) => r.deviceId));
    for (const record of records) await this.#copy(record);
    for (const device of this.#o.devices.list()) {
      if (device.pairedOn !== undefined && !this.#shared.has(device.deviceId)) {
        await this.#o.devices.revoke(device.deviceId);
      } else if (device.pairedOn === undefined && device.tokenHash !== undefined) {
        await this.#publish(device);
      }
    }
  }

  /** Puts a device paired here into etcd; a failure leaves it paired with this rig alone. */
  async #publish(device: PairedDevice): Promise<void> {
    const { deviceId, name, scopes, tokenId, pairedAt, tokenHash } = device;
    if (tokenHash === undefined) return;
    const record: SharedDevice = {
      ...{ deviceId, name, scopes, tokenId, pairedAt, tokenHash },
      pairedOn: this.#o.rig,
    };
    try {
      await this.#o.etcd.put(this.#prefix + deviceId, JSON.stringify(record));
      this.#shared.add(deviceId);
      if (this.#o.devices.get(deviceId)) {
        await this.#o.devices.add({ ...device, pairedOn: record.pairedOn });
      }
    } catch (error) {
      this.#o.log(
        "warn",
        `Device ${deviceId} is paired with this rig only for now: the group's etcd did not ` +
          `answer (${error}); it is shared when this rig next starts in the group`,
      );
    }
  }

  /** A device of etcd copied into this rig's registry (unless it holds that one already). */
  async #copy(record: SharedDevice): Promise<void> {
    if (this.#o.devices.get(record.deviceId)?.tokenId === record.tokenId) return;
    await this.#o.devices.add({ ...record, address: "", origin: "pairing" });
  }

  /** A device revoked on this rig: its record leaves etcd, so every rig revokes it. */
  async #unshare(deviceId: string): Promise<void> {
    if (!this.#shared.delete(deviceId)) return;
    try {
      await this.#o.etcd.txn({
        compare: [],
        success: [{ delete: { key: this.#prefix + deviceId } }],
        failure: [],
      });
    } catch (error) {
      this.#o.log(
        "warn",
        `Device ${deviceId} is revoked on this rig, but the group's etcd did not answer ` +
          `(${error}): the other rigs still accept it; revoke it again once the group is whole`,
      );
    }
  }

  /** The watch of the devices' prefix, restarted after the last revision it saw. */
  async #watchLoop(): Promise<void> {
    while (!this.#stopped.signal.aborted) {
      try {
        await this.#o.etcd.watch(this.#prefix, {
          fromRevision: this.#revision + 1,
          onEvents: (events, revision) => {
            this.#revision = revision;
            this.#applying = this.#applying.then(() => this.#events(events)).catch((error) =>
              this.#o.log(
                "warn",
                `Shared pairings: a change of the group's devices failed: ${error}`,
              )
            );
          },
          // Revocations may be lost with the compacted revisions: read the whole list again.
          onCompacted: () => void this.#sync().catch(() => {}),
          signal: this.#stopped.signal,
        });
      } catch {
        // its member went away: watch again from where it was
      }
      await pause(100, this.#stopped.signal);
    }
  }

  async #events(events: readonly WatchEvent[]): Promise<void> {
    for (const { type, kv } of events) {
      const deviceId = kv.key.slice(this.#prefix.length);
      if (type === "delete") {
        this.#shared.delete(deviceId);
        if (this.#o.devices.get(deviceId)) await this.#o.devices.revoke(deviceId);
        continue;
      }
      const record = recordOf(kv);
      if (record === null) continue;
      this.#shared.add(deviceId);
      await this.#copy(record);
    }
  }
}

/**
 * Shares the pairings of `auth` with the rigs of `group` (call after the registry's `onrevoke`
 * is set: it is wrapped); its stop.
 */
export function sharePairings(
  group: Pick<RigGroup, "etcd" | "status">,
  auth: Pick<SharedPairingsOptions, "devices" | "authenticator">,
  log: Logger,
): () => void {
  const { group: name, rig } = group.status();
  const shared = new SharedPairings({ etcd: group.etcd, group: name!, rig, ...auth, log });
  void shared.start();
  return () => shared.stop();
}
