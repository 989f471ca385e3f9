/**
 * Whether something is at a path.
 * @module
 */

/** Whether `path` exists (a file, a folder or a device); any error reading it counts as not. */
export function isOnDisk(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
