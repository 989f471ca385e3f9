/**
 * A real full disk for tests: a small tmpfs the test mounts itself (as root:
 * `mount -t tmpfs -o size=...`), a filler file that takes its free space,
 * and the space given back. A machine where mounting is not possible fails
 * the test with a message that says so: a skip would pass for a success.
 * @module
 */

/** A mounted tmpfs: its folder, and the filler that can take its space. */
export interface Tmpfs {
  dir: string;
  /** Writes a filler until the disk is full (ENOSPC); returns the bytes it took. */
  fill(): number;
  /** Gives back `bytes` of the filler's space (default: all of it, the filler removed). */
  free(bytes?: number): void;
  /** Unmounts and removes the folder. */
  close(): Promise<void>;
}

async function run(command: string, args: string[]): Promise<string | null> {
  const out = await new Deno.Command(command, { args, stdout: "null", stderr: "piped" }).output();
  return out.success ? null : new TextDecoder().decode(out.stderr).trim();
}

/** Mounts a tmpfs of `size` (`2m`, `512k`) on `at` (made if missing) or a new temp folder. */
export async function mountTmpfs(size = "2m", at?: string): Promise<Tmpfs> {
  if (at) await Deno.mkdir(at, { recursive: true });
  const dir = at ?? await Deno.makeTempDir({ prefix: "cueport-tmpfs-" });
  const refused = await run("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
  if (refused !== null) {
    await Deno.remove(dir);
    throw new Error(
      `Cannot mount a tmpfs on ${dir} (${refused}): the full-disk tests need a real full ` +
        `filesystem, so they run as root (or with CAP_SYS_ADMIN)`,
    );
  }
  const filler = `${dir}/.filler`;
  return {
    dir,
    fill() {
      const file = Deno.openSync(filler, { create: true, append: true });
      const block = new Uint8Array(4096);
      let bytes = 0;
      try {
        for (;;) bytes += file.writeSync(block);
      } catch (error) {
        if ((error as { code?: string }).code !== "ENOSPC") throw error;
      } finally {
        file.close();
      }
      return bytes;
    },
    free(bytes) {
      if (bytes === undefined) return Deno.removeSync(filler);
      const file = Deno.openSync(filler, { write: true });
      try {
        file.truncateSync(Math.max(0, file.statSync().size - bytes));
      } finally {
        file.close();
      }
    },
    async close() {
      // A file still open (a player that died) keeps it busy: then a lazy unmount.
      const busy = await run("umount", [dir]);
      const refused = busy === null ? null : await run("umount", ["-l", dir]);
      if (refused !== null) throw new Error(`Cannot unmount ${dir}: ${refused}`);
      await Deno.remove(dir);
    },
  };
}
