/**
 * The browser's profiles: one made fresh for each launch, mode 0700 and owned
 * by the account the browser runs as, under one parent folder the player owns
 * (`<temp>/cueport-output.<uid>`, mode 0711: another account can pass through
 * it to its own profile, and list nothing). Each profile has a lock file
 * beside it that its player holds locked while the profile lives: the kernel
 * drops the lock when the player ends, even by SIGKILL, so a profile whose lock
 * can be taken is stale, and the next start removes it (a profile is about 2.4
 * MB; a player killed again and again would fill the disk with them), killing
 * first any process still running on it. The lock
 * is taken before its `.lock` name and the folder exist, so a player starting
 * at the same moment never finds a new profile's lock free.
 * @module
 */
import type { BrowserAccount } from "./browser_process.ts";

/** A profile in use: `release` removes it. */
export interface Profile {
  path: string;
  release(): Promise<void>;
}

/** The profiles of the browsers of the players of one account. */
export class ProfileDirs {
  readonly parent: string;
  /** The account of this player (the owner of the folder). */
  readonly uid: number;

  /** Profiles under `parent`, made (mode 0711) unless it is there, owned by `uid`. */
  constructor(parent: string, uid: number) {
    this.parent = parent;
    this.uid = uid;
    try {
      Deno.mkdirSync(parent, { mode: 0o711 });
      Deno.chmodSync(parent, 0o711); // the umask aside
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    const info = Deno.lstatSync(parent);
    // A folder another account made in its place (in a shared /tmp) is not used.
    if (!info.isDirectory || info.uid !== uid || ((info.mode ?? 0) & 0o022) !== 0) {
      throw new Error(
        `The folder of the browser's profiles ${parent} is not this account's own: remove it`,
      );
    }
  }

  /** The parent folder of this account's profiles in the system's temp folder. */
  static forThisAccount(): ProfileDirs {
    const probe = Deno.makeTempDirSync({ prefix: "cueport-probe-" });
    const uid = Deno.statSync(probe).uid ?? 0;
    Deno.removeSync(probe);
    const temp = probe.slice(0, probe.lastIndexOf("/"));
    return new ProfileDirs(`${temp}/cueport-output.${uid}`, uid);
  }

  /**
   * Removes the profiles whose player is gone (their lock is free), and what a
   * crash during `create` left: a `.lock.new` whose lock is free, a profile
   * folder with no lock at all; each of these only when older than
   * `ORPHAN_AGE_MS`, so one a player is making now is not touched. How many.
   */
  async removeStale(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const entry of [...Deno.readDirSync(this.parent)]) {
      const path = `${this.parent}/${entry.name}`;
      if (entry.name.endsWith(".lock")) {
        if (await removeIfFree(path, path.slice(0, -".lock".length))) removed++;
      } else if (entry.name.endsWith(".lock.new")) {
        if (!await isOld(path, now)) continue;
        if (await removeIfFree(path, path.slice(0, -".lock.new".length))) removed++;
      } else if (entry.isDirectory && entry.name.startsWith(PREFIX)) {
        if (await exists(`${path}.lock`) || await exists(`${path}.lock.new`)) continue;
        if (!await isOld(path, now)) continue;
        await removeTree(path);
        removed++;
      }
    }
    return removed;
  }

  /**
   * A new profile, owned by `account` (null: this account), mode 0700, locked.
   * Its lock is taken under a name the sweep leaves alone while young
   * (`.lock.new`), then renamed to `.lock` (the lock goes with the file), and
   * the folder made after: a `.lock` another player's sweep sees is held.
   */
  create(account: BrowserAccount | null): Profile {
    const path = `${this.parent}/${PREFIX}${crypto.randomUUID().slice(0, 13)}`;
    const lock = Deno.openSync(`${path}.lock.new`, { write: true, createNew: true, mode: 0o600 });
    lock.lockSync(true);
    Deno.renameSync(`${path}.lock.new`, `${path}.lock`);
    Deno.mkdirSync(path, { mode: 0o700 });
    if (account) Deno.chownSync(path, account.uid, account.gid);
    Deno.chmodSync(path, 0o700);
    let removal: Promise<void> | null = null;
    return {
      path,
      release: () =>
        removal ??= (async () => {
          await removeTree(path);
          await Deno.remove(`${path}.lock`).catch(() => {});
          lock.close();
        })(),
    };
  }
}

/** The start of every profile folder's name. */
const PREFIX = "profile-";
/**
 * Age after which a `.lock.new` or a folder without a lock is what a crash
 * left: a player makes them and takes its lock within milliseconds.
 */
export const ORPHAN_AGE_MS = 60_000;

/** Removes `folder` then `lockPath` if the lock is free (its player is gone); whether it did. */
async function removeIfFree(lockPath: string, folder: string): Promise<boolean> {
  const lock = await openLock(lockPath);
  if (!lock || !lock.tryLockSync(true)) {
    lock?.close();
    return false; // its player lives
  }
  await killUsersOf(folder);
  await removeTree(folder);
  await Deno.remove(lockPath).catch(() => {});
  lock.close();
  return true;
}

/**
 * Kills what still runs on the stale profile `folder` (the processes whose command line names it
 * as their `--user-data-dir`, by `pkill`: Deno reads another process's command line only with
 * every permission): a browser whose player died ends with its pipe, and this is the backstop
 * for one that did not (killed while it started, say). Without `pkill` (not Linux, no procps),
 * nothing. Resolves with whether `pkill` found one.
 */
export async function killUsersOf(folder: string): Promise<boolean> {
  if (Deno.build.os === "windows") return false;
  const pattern = `--user-data-dir=${folder.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}( |$)`;
  try {
    const { code } = await new Deno.Command("pkill", {
      args: ["-KILL", "-f", "--", pattern],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return code === 0;
  } catch {
    return false; // no pkill here
  }
}

async function isOld(path: string, now: number): Promise<boolean> {
  const mtime = (await Deno.lstat(path).catch(() => null))?.mtime;
  return mtime !== null && mtime !== undefined && now - mtime.getTime() > ORPHAN_AGE_MS;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function openLock(path: string): Promise<Deno.FsFile | null> {
  try {
    return await Deno.open(path, { write: true });
  } catch {
    return null;
  }
}

/** Removes a folder; Chromium's helpers may hold files a moment after it exits. */
async function removeTree(path: string): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt++) {
    try {
      await Deno.remove(path, { recursive: true });
      return;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
