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
 * `tests/` when none is. `CUEPORT_TEST_NO_CHECK=1` adds `--no-check`: `.ci/run`
 * sets it once `deno task check` has type-checked every file the tests load
 * (`tests/`, `tools/`, `bench/`), so that its test processes do not check them again.
 * @module
 */
import { ensureMidiPeerInChild } from "./midi_peer_build.ts";
import { testFlags } from "../server/deploy/permissions.ts";
import { ensureOutputAccount } from "../server/deploy/output_account.ts";
import { COMPANION_UNBUILT_ENV, missingPeers, type Peer, peerProblem, which } from "./peers.ts";
import { ensureCompanionBuiltInChild } from "./companion_build.ts";
import {
  failedTests,
  junitPathOf,
  mergeJunit,
  PART_ENV,
  testFilesUnder,
  type TestGroup,
  testGroups,
} from "./test_groups.ts";

/** `deno test` options that take the next argument as their value. */
const VALUED = new Set(["--filter", "--junit-path", "--reporter", "--coverage", "--config", "-c"]);

/** Set to `1`, the test processes skip the type check (`--no-check`): CI's check step did it. */
export const NO_CHECK_ENV = "CUEPORT_TEST_NO_CHECK";

/**
 * The arguments of one `deno test` process: the service's permission set, `--no-check` when
 * `noCheck`, then `args`.
 */
export function testProcessArgs(args: readonly string[], noCheck: boolean): string[] {
  return ["test", ...testFlags(), ...(noCheck ? ["--no-check"] : []), ...args];
}

/** The arguments for `deno test`: the flags, then `args`, with `tests/` when no file is named. */
export function denoTestArgs(args: readonly string[]): string[] {
  return ["test", ...testFlags(), ...args, ...(namesFile(args) ? [] : ["tests/"])];
}

/** Whether `args` name a file or folder to test (an argument that is no option or option value). */
export function namesFile(args: readonly string[]): boolean {
  return args.some((arg, i) => !arg.startsWith("-") && !(i > 0 && VALUED.has(args[i - 1] ?? "")));
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

  Deno.exit(await runTests(Deno.args, env));
}

/**
 * Runs `deno test` on `args`: one process when files are named, else the
 * groups of `test_groups.ts` side by side, the later ones' output held and
 * printed when it ends, their JUnit reports merged. The exit code is 0 only
 * when every process passed.
 */
async function runTests(args: readonly string[], env: Record<string, string>): Promise<number> {
  const groups = namesFile(args)
    ? [{ name: "files", args: [...args] }]
    : testGroups(args, testFilesUnder("tests"));
  if (groups.length === 1) return await runGroup(groups[0]!.args, env, false);
  const envOf = (g: TestGroup) => g.part ? { ...env, [PART_ENV]: g.part } : env;
  const side = groups.filter((g) => !g.isAfter);
  const after = groups.filter((g) => g.isAfter);
  const codes = await Promise.all(side.map((g, i) => runGroup(g.args, envOf(g), i > 0, g.name)));
  for (const g of after) codes.push(await runGroup(g.args, envOf(g), false, g.name));
  const junit = junitPathOf(args);
  if (junit !== null) {
    const paths = groups.map((g) => `${junit}.${g.name}.xml`);
    const reports = await Promise.all(paths.map((p) => Deno.readTextFile(p).catch(() => "")));
    const whole = reports.filter((r) => r.includes("<testsuites"));
    if (whole.length === reports.length) {
      const merged = mergeJunit(whole);
      await Deno.writeTextFile(junit, merged);
      for (const line of failureLines(merged)) console.error(line);
    } else console.error(`tests: a group wrote no JUnit report; ${junit} is not written`);
    for (const p of paths) await Deno.remove(p).catch(() => {});
  }
  for (const [i, g] of [...side, ...after].entries()) {
    if (codes[i] !== 0) console.error(`tests: the process "${g.name}" exited with ${codes[i]}`);
  }
  return codes.find((c) => c !== 0) ?? 0;
}

/**
 * The failed tests of a merged JUnit report, one line each, said last: the held processes'
 * output comes before the last one's, and a log's tail should name what failed wherever it ran.
 */
export function failureLines(junit: string): string[] {
  return failedTests(junit).map((t) =>
    `tests: FAILED ${t.file} > ${t.name} (${t.seconds.toFixed(1)} s): ${t.message}`
  );
}

/** One `deno test` process on `args` (after its flags); `held` keeps its output until it ends. */
async function runGroup(
  args: readonly string[],
  env: Record<string, string>,
  held: boolean,
  name = "suite",
): Promise<number> {
  const output = held ? "piped" : "inherit";
  const child = new Deno.Command(Deno.execPath(), {
    args: testProcessArgs(args, Deno.env.get(NO_CHECK_ENV) === "1"),
    env,
    stdout: output,
    stderr: output,
  }).spawn();
  const forward = () => child.kill("SIGTERM");
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", forward);
  if (!held) return (await child.status).code;
  const { code, stdout, stderr } = await child.output();
  console.log(`\n== ${name} (run beside the suite)`);
  await Deno.stdout.write(stdout);
  await Deno.stderr.write(stderr);
  return code;
}
