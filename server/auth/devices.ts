/**
 * Paired devices, in `<dataDir>/auth/devices.json` (owner-only, with kept
 * copies). A token is valid only while its device is listed with the same
 * token id, so revoking a device stops its token at once. A damaged file is
 * served from its newest good copy; with none, the registry starts empty (the
 * devices pair again) and the damaged file is kept aside for the operator.
 * @module
 */
import { z } from "zod";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import { KEEP_GENERATIONS } from "../../lib/kept_copies.ts";
import type { DataProblem } from "../../protocol/library.ts";
import { jsonParser, readRecovering } from "../../lib/recover_file.ts";
import { ALL_SCOPES, type Scope } from "./tokens.ts";

/** The file's shape: a device entry the registry can use, or the file is refused. */
const DevicesFile = z.array(z.object({
  deviceId: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(ALL_SCOPES as [Scope, ...Scope[]])),
  tokenId: z.string(),
  pairedAt: z.string(),
  address: z.string(),
  origin: z.enum(["pairing", "approval", "osc", "midi"]).optional(),
  lastUsedAt: z.string().optional(),
  tokenHash: z.string().optional(),
  pairedOn: z.string().optional(),
}));

/**
 * A new device's id: `dev-` and 12 hex digits (48 random bits), as docs/security.md shows it.
 * @example
 * ```ts
 * newDeviceId(); // "dev-1c2d3e4f5a6b"
 * ```
 */
export function newDeviceId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `dev-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** One paired device. */
export interface Device {
  deviceId: string;
  name: string;
  scopes: Scope[];
  tokenId: string;
  pairedAt: string;
  address: string;
  /**
   * How it got its token: a one-time code, the approval of a local client, or
   * `/connect` on the OSC port (an OSC sender, known by its address), or the
   * operator's approval of a MIDI participant (known by its address, no token).
   */
  origin?: "pairing" | "approval" | "osc" | "midi";
  /** When its token was last accepted (kept in memory, written with the next change). */
  lastUsedAt?: string;
  /**
   * The SHA-256 of its token (hex), for a device paired with a code: in a rig group a rig accepts
   * the token of a device another rig paired by this hash, not by its own signing key
   * (`server/rigs/pairing.ts`). Devices paired before it have none: they stay paired with their rig.
   */
  tokenHash?: string;
  /** In a rig group: the rig that paired it, set once its record is in the group's etcd. */
  pairedOn?: string;
}

/** Bounds on the entries of approved local clients (`addApproved`). */
export interface ApprovedLimits {
  /** At most this many approved local clients are kept; the least recently used go first. */
  maxEntries: number;
  /** An approved client whose token was not used for this long is forgotten. */
  idleMs: number;
  /** An approved client that never came back with its token is forgotten after this long. */
  neverUsedMs: number;
  now: number;
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
  /** Set when `devices.json` was found damaged at open. */
  problem: DataProblem | null = null;

  private constructor(path: string) {
    this.#path = path;
  }

  /** Loads the registry from the data dir, recovering a damaged file (see the module). */
  static async open(dataDir: string): Promise<DeviceRegistry> {
    const registry = new DeviceRegistry(`${dataDir}/auth/devices.json`);
    const read = await readRecovering(registry.#path, {
      dataDir,
      parse: jsonParser(DevicesFile),
      mode: 0o600,
    });
    for (const d of read.value ?? []) registry.#devices.set(d.deviceId, d as Device);
    registry.problem = read.problem;
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

  /**
   * Adds the entry of an approved local client, each with its own token, and
   * forgets approved clients that stayed away (`limits`): the registry does
   * not grow with every local script that connects once.
   */
  async addApproved(device: Device, limits: ApprovedLimits): Promise<void> {
    this.#devices.set(device.deviceId, { ...device, origin: "approval" });
    const approved = this.list()
      .filter((d) => d.origin === "approval")
      .map((d) => ({ d, used: Date.parse(d.lastUsedAt ?? d.pairedAt) }))
      .sort((a, b) => b.used - a.used);
    const gone = approved.filter(({ d, used }, i) =>
      i >= limits.maxEntries || limits.now - used > limits.idleMs ||
      (d.lastUsedAt === undefined && limits.now - used > limits.neverUsedMs)
    ).map(({ d }) => d.deviceId).filter((id) => id !== device.deviceId);
    for (const id of gone) this.#devices.delete(id);
    await this.#save();
    for (const id of gone) this.onrevoke(id);
  }

  /** Notes that a device's token was accepted (in memory; see `Device.lastUsedAt`). */
  touch(deviceId: string, at: string): void {
    const device = this.#devices.get(deviceId);
    if (device) device.lastUsedAt = at;
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
      return writeJsonAtomic(this.#path, this.list(), { mode: 0o600, keep: KEEP_GENERATIONS });
    });
    this.#saving = this.#next;
    return this.#next;
  }
}
