/**
 * What can stop the service from starting, as one line naming the setting to
 * change (`StartupError`), and the lock that keeps one instance per data dir.
 * @module
 */
import { envName, type SettingName, SETTINGS } from "../protocol/settings.ts";

/** A start-up failure the operator can fix; `main.ts` prints its message alone and exits 1. */
export class StartupError extends Error {
  override name = "StartupError";
}

/** How a setting is changed: flag, environment variable and config key. */
export function settingHint(setting: SettingName): string {
  return `--${SETTINGS[setting].flag}, ${envName(setting)} or "${setting}" in the config file`;
}

/** Why a port could not be bound, in words ("is in use by another program"). */
export function portProblem(error: unknown): string {
  return error instanceof Deno.errors.AddrInUse
    ? "is in use by another program"
    : error instanceof Deno.errors.PermissionDenied
    ? "needs privileges this process does not have"
    : `cannot be bound (${(error as Error).message})`;
}

/**
 * The line for a port of the service's own additions (OSCQuery, the 5.0.0 interface) that
 * cannot be bound: the service starts without that part (docs/deployment.md, "Ports").
 */
export function optionalPortLine(
  name: string,
  port: number,
  error: unknown,
  setting: SettingName,
): string {
  return `The ${name} port ${port} ${portProblem(error)}: ${name} is off; choose another ` +
    `with ${settingHint(setting)}`;
}

/** What the running instance writes in its lock file, for a second one to name it. */
export interface InstanceInfo {
  pid: number;
  startedAt: string;
  version: string;
  ports?: { http: number; ws: number; osc: number; oscQuery?: number };
  /** The addresses it listens on (`host`): `cueport pair` offers only LAN addresses among them. */
  hosts?: string[];
}

/** Name of the lock file in the data dir. */
export const LOCK_FILE = "cueport.lock";

/** How long a second instance waits for the lock before it gives up. */
const LOCK_WAIT_MS = 1000;

/**
 * One instance per data dir: an exclusive lock (flock) on `<dataDir>/cueport.lock`,
 * held while the process lives. The system drops it when the process ends in any
 * way, so a crashed instance never leaves it stuck; the file's content (pid, ports)
 * only names the holder.
 */
export class InstanceLock {
  #file: Deno.FsFile;
  #info: InstanceInfo;

  private constructor(file: Deno.FsFile, info: InstanceInfo) {
    this.#file = file;
    this.#info = info;
  }

  /**
   * Takes the data dir's lock (creating the folder).
   * @throws {StartupError} when another instance holds it or the folder cannot be used
   */
  static async acquire(dataDir: string, version: string): Promise<InstanceLock> {
    const path = `${dataDir}/${LOCK_FILE}`;
    let file: Deno.FsFile;
    try {
      await Deno.mkdir(dataDir, { recursive: true });
      file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
    } catch (error) {
      const { reason, canMakeWritable } = folderProblem(error);
      throw new StartupError(
        `Cannot use the data dir "${dataDir}" (${reason}): ${
          canMakeWritable ? "make it writable, or choose" : "choose"
        } another with ${settingHint("dataDir")}`,
      );
    }
    const locked = file.lock(true).then(() => true);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), LOCK_WAIT_MS);
    });
    const isLocked = await Promise.race([locked, waited]);
    clearTimeout(timer);
    if (!isLocked) {
      // The lock call stays pending until the holder ends; the file closes then.
      locked.finally(() => file.close()).catch(() => {});
      throw new StartupError(
        `Another Cueport ${await describeHolder(
          path,
        )} is using the data dir "${dataDir}": stop it, or start this one with another data dir (${
          settingHint("dataDir")
        })`,
      );
    }
    const info: InstanceInfo = { pid: Deno.pid, startedAt: new Date().toISOString(), version };
    const lock = new InstanceLock(file, info);
    await lock.#write();
    return lock;
  }

  /** Records the bound ports, so operator commands and a second instance find them. */
  async setPorts(
    ports: { http: number; ws: number; osc: number; oscQuery?: number },
    hosts?: readonly string[],
  ): Promise<void> {
    this.#info = { ...this.#info, ports: { ...ports }, ...(hosts ? { hosts: [...hosts] } : {}) };
    await this.#write();
  }

  /** Releases the lock (at shutdown). */
  release(): void {
    try {
      this.#file.close(); // closing drops the lock
    } catch { /* already released */ }
  }

  async #write(): Promise<void> {
    const bytes = new TextEncoder().encode(JSON.stringify(this.#info) + "\n");
    await this.#file.truncate(0);
    await this.#file.seek(0, Deno.SeekMode.Start);
    let written = 0;
    while (written < bytes.length) written += await this.#file.write(bytes.subarray(written));
  }
}

/** Reads a data dir's lock file: the running instance's pid and ports, if it wrote them. */
export async function readInstanceInfo(dataDir: string): Promise<InstanceInfo | null> {
  try {
    const info = JSON.parse(await Deno.readTextFile(`${dataDir}/${LOCK_FILE}`));
    return typeof info?.pid === "number" ? info as InstanceInfo : null;
  } catch {
    return null;
  }
}

/**
 * The instance that runs with this data dir now, from its lock file: null when no process
 * holds the lock (none runs, or one stopped or crashed and left the file behind).
 */
export async function runningInstance(dataDir: string): Promise<InstanceInfo | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(`${dataDir}/${LOCK_FILE}`, { read: true });
  } catch {
    return null;
  }
  try {
    if (await file.tryLock(false)) return null; // free: nobody runs here
  } finally {
    file.close();
  }
  return await readInstanceInfo(dataDir) ?? { pid: 0, startedAt: "", version: "" };
}

async function describeHolder(path: string): Promise<string> {
  const dir = path.slice(0, -LOCK_FILE.length - 1);
  const info = await readInstanceInfo(dir);
  if (!info) return "(starting up)";
  const ports = info.ports ? `, HTTP port ${info.ports.http}` : "";
  return `(pid ${info.pid}${ports}, started ${info.startedAt})`;
}

/** Why a folder the service needs cannot be used, and whether making it writable would help. */
export interface FolderProblem {
  reason: string;
  canMakeWritable: boolean;
}

/**
 * Why a folder cannot be used, from the error of creating or opening it. Deno refuses
 * `/dev`, `/proc` and `/sys` to a program without `--allow-all`, and its text says to run
 * again with that flag: no data dir can live in those system folders, and no show should
 * run with every permission, so the reason says what the folder is instead.
 */
export function folderProblem(error: unknown): FolderProblem {
  const message = error instanceof Error ? error.message : String(error);
  const special = /Requires all access to "([^"]+)", run again with the --allow-all flag/
    .exec(message);
  if (special) {
    const top = /^[/\\]?[^/\\]*/.exec(special[1]!)![0];
    return {
      reason: `cannot create it: ${top} is a system folder, closed to Cueport`,
      canMakeWritable: false,
    };
  }
  return { reason: message, canMakeWritable: true };
}
