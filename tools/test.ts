/**
 * `deno task test [deno test options] [files]`: the README's test command.
 * Finds the programs the tests run against (`tools/peers.ts`); on Debian or
 * Ubuntu as root it installs the missing ones with apt-get, elsewhere it prints
 * one line naming them and how to install them, and their tests are skipped
 * (`CUEPORT_TEST_PEERS=required`, as CI sets it, makes them fail instead;
 * `CUEPORT_TEST_INSTALL=0` installs nothing). Then it runs `deno test` with the
 * service's permission set on the files given, or on `tests/` when none is.
 * @module
 */
import { testFlags } from "../server/deploy/permissions.ts";
import { ensureOutputAccount } from "../server/deploy/output_account.ts";
import { missingPeers, type Peer, peerProblem, which } from "./peers.ts";

/** `deno test` options that take the next argument as their value. */
const VALUED = new Set(["--filter", "--junit-path", "--reporter", "--coverage", "--config", "-c"]);

/** The arguments for `deno test`: the flags, then `args`, with `tests/` when no file is named. */
export function denoTestArgs(args: readonly string[]): string[] {
  const namesFile = args.some((arg, i) =>
    !arg.startsWith("-") && !(i > 0 && VALUED.has(args[i - 1] ?? ""))
  );
  return ["test", ...testFlags(), ...args, ...(namesFile ? [] : ["tests/"])];
}

/** Installs `peers` with apt-get when this is Debian or Ubuntu and we are root; true if it ran. */
async function aptInstall(peers: readonly Peer[]): Promise<boolean> {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0 || !which("apt-get")) return false;
  const packages = [...new Set(peers.map((p) => p.debian))];
  console.error(`tests: installing ${packages.join(" ")} (apt-get, once)`);
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  for (
    const args of [
      ["update", "-qq"],
      ["install", "-y", "-qq", "--no-install-recommends", ...packages],
    ]
  ) {
    const out = await new Deno.Command("apt-get", { args, env, stdout: "null", stderr: "piped" })
      .output();
    if (!out.success) {
      const last = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
      console.error(`tests: apt-get ${args[0]} failed: ${last}`);
      return true;
    }
  }
  return true;
}

/** One line naming the missing peers, their packages and what happens to their tests. */
export function missingLine(peers: readonly Peer[], required: boolean): string {
  const names = peers.map((p) => `${p.name} (${p.why})`).join(", ");
  const packages = [...new Set(peers.map((p) => p.debian))].join(" ");
  const outcome = required
    ? "their tests fail (CUEPORT_TEST_PEERS=required)"
    : "their tests are skipped";
  return `tests: missing ${names}: ${outcome}; install with \`apt-get install ${packages}\` ` +
    `(Debian/Ubuntu) or your system's package manager`;
}

/** The Companion module's folder (its tests run the package `npm run build` makes from it). */
const COMPANION_DIR = new URL("../integrations/companion/", import.meta.url).pathname;

/**
 * Installs the Companion module's dependencies from its lock file (`npm ci`) when they are not
 * there, so its tests can build it; one line says so. Nothing when Node is missing or unfit (the
 * peers line names it) or they are installed already; a failure is one line (its tests then say
 * how to build it).
 */
async function installCompanion(): Promise<void> {
  if (peerProblem("node")) return;
  try {
    Deno.statSync(`${COMPANION_DIR}node_modules`);
    return;
  } catch { /* not installed yet */ }
  console.error("tests: installing the Companion module's dependencies (npm ci, once)");
  const out = await new Deno.Command("npm", {
    args: ["ci", "--no-audit", "--no-fund", "--loglevel=error"],
    cwd: COMPANION_DIR,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (out.success) return;
  const last = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
  console.error(`tests: npm ci in integrations/companion failed: ${last}`);
}

if (import.meta.main) {
  const required = Deno.env.get("CUEPORT_TEST_PEERS") === "required";
  let missing = missingPeers();
  if (missing.length > 0 && Deno.env.get("CUEPORT_TEST_INSTALL") !== "0") {
    if (await aptInstall(missing)) missing = missingPeers();
  }
  if (missing.length > 0) console.error(missingLine(missing, required));
  if (Deno.env.get("CUEPORT_TEST_INSTALL") !== "0") await installCompanion();
  // The tests run as root here: the output's browser then runs as its own system user.
  if (
    Deno.build.os === "linux" && Deno.uid() === 0 && Deno.env.get("CUEPORT_TEST_INSTALL") !== "0"
  ) {
    const problem = await ensureOutputAccount();
    if (problem) console.error(`tests: the output browser's user: ${problem}`);
  }

  const child = new Deno.Command(Deno.execPath(), { args: denoTestArgs(Deno.args) }).spawn();
  const forward = () => child.kill("SIGTERM");
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", forward);
  const { code } = await child.status;
  Deno.exit(code);
}
