/** Reading what a test's service left on disk. */

/** Every entry of a folder, hidden ones included, sorted; none when it does not exist. */
export async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(path)) names.push(e.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}
