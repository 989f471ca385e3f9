/**
 * The Node packages the tests run (the Companion module, the network MIDI
 * peer) are installed by a child Deno that may write in the package's folder
 * only: the test runner hands it the work and reads back why it could not.
 * @module
 */

/**
 * Runs `script` (a build tool whose main is `buildMain`) in a child Deno that
 * may write in `writeDir`: its lines go to our stderr; why it failed, or null.
 */
export async function buildInChild(script: string | URL, writeDir: string): Promise<string | null> {
  const path = new URL(script).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      `--allow-write=${writeDir}`,
      "--allow-run",
      "--allow-env",
      "--allow-sys",
      path,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (out.success) return null;
  const name = path.slice(path.lastIndexOf("/tools/") + 1);
  return new TextDecoder().decode(out.stdout).trim() || `${name} exit ${out.code}`;
}

/** The main of a build tool: `ensure` says its lines on stderr; a problem is printed and exits 1. */
export async function buildMain(
  ensure: (say: (line: string) => void) => Promise<string | null>,
): Promise<void> {
  const problem = await ensure((line) => console.error(line));
  if (problem) {
    console.log(problem);
    Deno.exit(1);
  }
}
