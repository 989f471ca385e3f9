/**
 * `deno task test [deno test options] [files]`: the README's test command.
 * Finds the programs the tests run against (`tools/peers.ts`); on Debian or
 * Ubuntu as root it installs the missing ones with apt-get, elsewhere it prints
 * one line naming them and how to install them, and their tests are skipped
 * (`CUEPORT_TEST_PEERS=required`, as CI sets it, makes them fail instead;
 * `CUEPORT_TEST_INSTALL=0` installs nothing). It builds the Companion module
 * when it is missing or stale (`tools/companion_build.ts`); where it cannot, one
 * line says why and its tests are skipped (or fail, when required); likewise it installs the
 * network MIDI test peer (`tools/midi_peer_build.ts`). Then it
 * runs `deno test` with the service's permission set on the files given, or on
 * `tests/` when none is.
 * @module
 */
import { ensureMidiPeerInChild } from "./midi_peer_build.ts";
import { testFlags } from "../server/deploy/permissions.ts";
import { ensureOutputAccount } from "../server/deploy/output_account.ts";
import { COMPANION_UNBUILT_ENV, missingPeers, type Peer, peerProblem, which } from "./peers.ts";
import { ensureCompanionBuiltInChild } from "./companion_build.ts";

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

/** One line saying the Companion module cannot be built, and what happens to its tests. */
export function companionLine(problem: string, required: boolean): string {
  const outcome = required
    ? "its tests fail (CUEPORT_TEST_PEERS=required)"
    : "its tests are skipped";
  return `tests: the Companion module is not built (${problem}): ${outcome}; ` +
    "build it with `cd integrations/companion && npm ci && npm run build`";
}

/** One line saying the network MIDI test peer cannot be installed, and what happens to its tests. */
export function midiPeerLine(problem: string, required: boolean): string {
  const outcome = required
    ? "its tests fail (CUEPORT_TEST_PEERS=required)"
    : "its tests are skipped";
  return `tests: the network MIDI peer is not installed (${problem}): ${outcome}; ` +
    "install it with `cd tools/midi_peer && npm ci`";
}

if (import.meta.main) {
  const required = Deno.env.get("CUEPORT_TEST_PEERS") === "required";
  let missing = missingPeers();
  if (missing.length > 0 && Deno.env.get("CUEPORT_TEST_INSTALL") !== "0") {
    if (await aptInstall(missing)) missing = missingPeers();
  }
  if (missing.length > 0) console.error(missingLine(missing, required));
  const env: Record<string, string> = {};
  if (Deno.env.get("CUEPORT_TEST_INSTALL") !== "0" && !peerProblem("node")) {
    const problem = await ensureCompanionBuiltInChild();
    if (problem) console.error(companionLine(problem, required));
    if (problem) env[COMPANION_UNBUILT_ENV] = problem;
    const midiPeer = await ensureMidiPeerInChild();
    if (midiPeer) console.error(midiPeerLine(midiPeer, required));
  }
  // The tests run as root here: the output's browser then runs as its own system user.
  if (
    Deno.build.os === "linux" && Deno.uid() === 0 && Deno.env.get("CUEPORT_TEST_INSTALL") !== "0"
  ) {
    const problem = await ensureOutputAccount();
    if (problem) console.error(`tests: the output browser's user: ${problem}`);
  }

  const child = new Deno.Command(Deno.execPath(), { args: denoTestArgs(Deno.args), env }).spawn();
  const forward = () => child.kill("SIGTERM");
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", forward);
  const { code } = await child.status;
  Deno.exit(code);
}
