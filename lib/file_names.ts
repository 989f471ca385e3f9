/**
 * Names of imported and uploaded media files: a name that tries to leave
 * the media folder is refused; any other is reduced to safe characters.
 * @module
 */

/** The longest stored name, in characters. */
export const MAX_FILE_NAME = 120;

/**
 * A safe file name for `name`, or an `error` saying why it is refused:
 * path separators, `.`/`..` and NUL are refused; other characters outside
 * letters, digits, space and `._()-` become `_`; leading dots are dropped.
 *
 * @example
 * ```ts
 * sanitizeFileName("My clip!.png"); // { name: "My clip_.png" }
 * sanitizeFileName("../../etc/passwd"); // { error: "..." }
 * ```
 */
export function sanitizeFileName(name: string): { name: string } | { error: string } {
  if (/[\/\\]/.test(name) || name === "." || name === ".." || name.includes("\0")) {
    return { error: `"${name}" is not a plain file name (no folders, no "." or "..")` };
  }
  let safe = name.normalize("NFC").replace(/[^A-Za-z0-9 ._()-]/g, "_").replace(/^[.\s]+/, "")
    .trim();
  if (safe.length > MAX_FILE_NAME) {
    const dot = safe.lastIndexOf(".");
    const ext = dot > 0 && safe.length - dot <= 10 ? safe.slice(dot) : "";
    safe = safe.slice(0, MAX_FILE_NAME - ext.length) + ext;
  }
  if (safe === "" || /^_*$/.test(safe.replace(/\..*$/, ""))) safe = `file${safe}`;
  return { name: safe };
}
