/**
 * Paired devices, in `<dataDir>/auth/devices.json` (owner-only). A token is
 * valid only while its device is listed with the same token id, so revoking
 * a device stops its token at once.
 * @module
 */
import { writeJsonAtomic } from "../../protocol/atomic_write.ts";
import type { Scope } from "./tokens.ts";

/** One paired device. */
export interface Device {
  deviceId: string;
  name: string;
  scopes: Scope[];
  tokenId: string;
  pairedAt: string;
  address: string;
}

/** The registry. */
export class DeviceRegistry {
  #path: string;
  #devices = new Map<string, Device>();
  /** The write under way (or the last one). */
  #saving: Promise<void> = Promise.resolve();
  /** The write queued behind it, shared by every change made meanwhile. */
  #next: Promise<void> | null = null;
  /** Told when a device is revoked (open connections close). */
  onrevoke: (deviceId: string) => void = () => {};

  private constructor(path: string) {
    this.#path = path;
  }

  /** Loads the registry from the data dir. */
  static async open(dataDir: string): Promise<DeviceRegistry> {
    const registry = new DeviceRegistry(`${dataDir}/auth/devices.json`);
    try {
      for (const d of JSON.parse(await Deno.readTextFile(registry.#path)) as Device[]) {
        registry.#devices.set(d.deviceId, d);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return registry;
  }

  /** Every paired device. */
  list(): Device[] {
    return [...this.#devices.values()];
  }

  get(deviceId: string): Device | undefined {
    return this.#devices.get(deviceId);
  }

  /** Adds (or replaces) a device and saves. */
  async add(device: Device): Promise<void> {
    this.#devices.set(device.deviceId, device);
    await this.#save();
  }

  /** Removes a device; false if it was not paired. */
  async revoke(deviceId: string): Promise<boolean> {
    if (!this.#devices.delete(deviceId)) return false;
    await this.#save();
    this.onrevoke(deviceId);
    return true;
  }

  /** Forgets every device (after the signing key is rotated). */
  async clear(): Promise<void> {
    const ids = [...this.#devices.keys()];
    this.#devices.clear();
    await this.#save();
    for (const id of ids) this.onrevoke(id);
  }

  /**
   * Writes run one at a time, each with the registry as it is when it starts:
   * two atomic writes racing can finish out of order and leave the older list
   * on disk, losing a device whose pairing was acknowledged. Callers that
   * queue while a write runs share the next one.
   */
  #save(): Promise<void> {
    this.#next ??= this.#saving.catch(() => {}).then(() => {
      this.#next = null;
      return writeJsonAtomic(this.#path, this.list(), { mode: 0o600 });
    });
    this.#saving = this.#next;
    return this.#next;
  }
}
