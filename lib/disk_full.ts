/**
 * A full disk, as the player and the service tell it: `isDiskFull` knows the
 * failure whatever wrote (Deno reports it as an `Error` whose `code` is
 * `ENOSPC`, message "No space left on device (os error 28)", measured with
 * Deno 2.9.6 on a full tmpfs; a quota is `EDQUOT`, os error 122), and
 * `diskFullMessage` is the one sentence every answer gives: whose disk is
 * full and what to free. The player answers it as JSON-RPC `DISK_FULL`
 * (-32007), the service as 507 `DISK_FULL` (docs/api.md).
 * @module
 */

/** Error codes of a write that found no space (`ENOSPC`) or no quota left (`EDQUOT`). */
const FULL_CODES = new Set(["ENOSPC", "EDQUOT"]);

/** Whether `error` is a write or sync that failed for lack of space (or of quota). */
export function isDiskFull(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && FULL_CODES.has(code)) return true;
  return /\(os error (28|122)\)/.test(error.message);
}

/**
 * The sentence a full disk is answered with: `dir` is the data dir (null
 * where the writer does not know it), `what` what could not be written.
 * @example
 * ```ts
 * diskFullMessage("/var/lib/cueport", "the Project");
 * // "Cannot write the Project: the disk of the data dir /var/lib/cueport is full: free space
 * //  on it (old recordings in recordings/, unused media) and try again"
 * ```
 */
export function diskFullMessage(dir: string | null, what?: string): string {
  const head = what ? `Cannot write ${what}: the` : "The";
  return `${head} disk of the data dir${dir === null ? "" : ` ${dir}`} is full: free space on it ` +
    `(old recordings in recordings/, unused media) and try again`;
}
