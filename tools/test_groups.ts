/**
 * The README's test command runs the suite as three `deno test` processes side
 * by side when no file is named, each test file in the process `PLACES` gives
 * it: the browser's tests (the output's, the web remote's, the ISF checks: they
 * use the CPU) in `output`; the reliability probes (`BESIDE`: they attack real
 * services and mostly wait on them) and their own unit tests, the network MIDI, discovery and
 * player supervisor tests and the rig groups' tests (etcd clusters, network namespaces) in
 * `reliability`; everything else in `service`. The probes
 * must hold on a busy machine anyway; the suite then takes about as long as its
 * largest process (`groupTimes` sums a JUnit report by process, to even them
 * after tests are added). One probe measures the machine itself
 * (`ALONE_PROBES`: the output's frame rate under stress-ng): it runs after the
 * others, alone. Each process writes its own JUnit report, merged into the one
 * asked for.
 * @module
 */

/** The test file of the probes, which runs beside the rest. */
export const BESIDE = "tests/tools/reliability_test.ts";

/** The processes that run side by side. */
export type Place = "output" | "service" | "reliability";

/**
 * Where each test file runs: the longest prefix of its path that is listed here wins, and a file
 * no prefix matches runs in `service`. The CI of 0640743 (this machine, load 5-11) took 912 s in
 * its test step: the processes' tests summed 729 s (`output`, 13 min of wall clock), 690 s
 * (`service`, about 14.5 min: its many files' loads add minutes) and 694 s (`reliability`, 12
 * min), then 41 s alone; the network MIDI tests (54 s) then moved from `service` to `reliability`.
 * The CI of d2fd117 (908 s in its test step, load 6-9) ended `reliability` at 761 s, `output` at
 * 799 s and `service` at 861 s: the discovery tests (mDNS: 13 s alone, mostly waiting) moved too.
 * The CI of b67aecc (874 s) ended them at 750, 768 and 827 s: the player supervisor's tests (12 s
 * alone for 3 CPU-s: waits) and the probes' own unit tests moved as well.
 */
export const PLACES: ReadonlyArray<readonly [prefix: string, place: Place]> = [
  ["tests/player/output/", "output"],
  ["tests/player/isf/", "output"],
  ["tests/server/web/", "output"],
  ["tests/integrations/", "output"],
  [BESIDE, "reliability"],
  ["tests/server/rigs/", "reliability"],
  ["tests/server/midi/", "reliability"],
  ["tests/server/discovery/", "reliability"],
  ["tests/server/player_client/", "reliability"],
  ["tests/tools/reliability/", "reliability"],
  ["tests/server/rigs/kill_test.ts", "service"],
];

/** The process that runs the test file `path` (relative to the repository, `tests/...`). */
export function placeOf(path: string): Place {
  let best: readonly [string, Place] | undefined;
  for (const entry of PLACES) {
    if (path.startsWith(entry[0]) && entry[0].length > (best?.[0].length ?? -1)) best = entry;
  }
  return best?.[1] ?? "service";
}

/** Whether `name` is a test file's name as `deno test` finds them in a folder. */
export function isTestFile(name: string): boolean {
  return /(?:^|[._])test\.[mc]?[jt]sx?$/.test(name);
}

/** The test files under `dir` (relative paths, `/`-separated, sorted). */
export function testFilesUnder(dir = "tests"): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of Deno.readDirSync(at)) {
      const path = `${at}/${entry.name}`;
      if (entry.isDirectory && entry.name !== "fixtures" && entry.name !== "node_modules") {
        walk(path);
      } else if (entry.isFile && isTestFile(entry.name)) found.push(path);
    }
  };
  walk(dir);
  return found.sort();
}

/**
 * The probes that run after the rest, alone: what they measure is the machine's to give. Not
 * `gl_soak`: it measures the browser's memory and GL objects, which the machine's load does not
 * give or take (two runs at a load of 21 to 23 passed with 61 and 88 edits, every refused program
 * refused by GL, no growth), so it runs beside the suite.
 */
export const ALONE_PROBES: readonly string[] = ["load"];

/** Which probes `reliability_test.ts` runs: set by the test command for its two processes. */
export const PART_ENV = "CUEPORT_RELIABILITY_PART";

/** Whether `reliability_test.ts` runs probe `name` in the part `part` (unset: every probe). */
export function runsProbe(name: string, part: string | undefined): boolean {
  if (part === "beside") return !ALONE_PROBES.includes(name);
  if (part === "alone") return ALONE_PROBES.includes(name);
  return true;
}

/** One `deno test` process: its name, its arguments after `deno test`'s flags, its part. */
export interface TestGroup {
  name: string;
  args: string[];
  /** The value of `PART_ENV` for it, if any. */
  part?: "beside" | "alone";
  /** It runs once the others have ended. */
  isAfter?: boolean;
}

/** The JUnit path in `args` (`--junit-path=x` or `--junit-path x`), and `args` without it. */
function takeJunit(args: readonly string[]): { path: string | null; rest: string[] } {
  const rest: string[] = [];
  let path: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith("--junit-path=")) path = arg.slice("--junit-path=".length);
    else if (arg === "--junit-path") path = args[++i] ?? null;
    else rest.push(arg);
  }
  return { path, rest };
}

/**
 * The processes to run for `args` (the options of the test command, no file
 * named) on `files` (every test file, `testFilesUnder()`): one for each `Place`,
 * side by side, `reliability` running `BESIDE` without the `ALONE_PROBES`, which
 * run after them in `alone`; each with its own JUnit path next to the asked one
 * (`<path>.<name>.xml`). With `--filter` the suite runs as one process, as a
 * filter is for a quick look.
 */
export function testGroups(args: readonly string[], files: readonly string[]): TestGroup[] {
  const { path, rest } = takeJunit(args);
  if (rest.includes("--filter") || rest.some((a) => a.startsWith("--filter="))) {
    return [{ name: "suite", args: [...args, "tests/"] }];
  }
  const junit = (name: string) => (path === null ? [] : [`--junit-path=${path}.${name}.xml`]);
  const group = (place: Place): TestGroup => ({
    name: place,
    args: [...rest, ...junit(place), ...files.filter((f) => placeOf(f) === place)],
    ...(place === "reliability" ? { part: "beside" as const } : {}),
  });
  const places: Place[] = ["output", "service", "reliability"];
  return [
    ...places.map(group).filter((g) => g.args.length > rest.length + junit(g.name).length),
    { name: "alone", args: [...rest, ...junit("alone"), BESIDE], part: "alone", isAfter: true },
  ];
}

/** The JUnit path asked for in `args`, or null. */
export function junitPathOf(args: readonly string[]): string | null {
  return takeJunit(args).path;
}

const TOTALS = /<testsuites\b([^>]*)>/;

/**
 * One JUnit report of several `deno test` reports: the counts summed, the time
 * the longest one's (they ran side by side), every `<testsuite>` kept.
 * @throws {Error} when a report has no `<testsuites>` element
 */
export function mergeJunit(reports: readonly string[]): string {
  const sums = { tests: 0, failures: 0, errors: 0 };
  let time = 0;
  const bodies = reports.map((report, i) => {
    const head = TOTALS.exec(report);
    if (!head) throw new Error(`JUnit report ${i + 1} has no <testsuites> element`);
    const attr = (name: string) => Number(new RegExp(` ${name}="([0-9.]+)"`).exec(head[1]!)?.[1]);
    for (const key of ["tests", "failures", "errors"] as const) sums[key] += attr(key) || 0;
    time = Math.max(time, attr("time") || 0);
    const start = head.index + head[0].length;
    return report.slice(start, report.lastIndexOf("</testsuites>")).replace(/^\n|\n\s*$/g, "");
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="deno test" tests="${sums.tests}" failures="${sums.failures}" ` +
    `errors="${sums.errors}" time="${time.toFixed(3)}">\n` +
    bodies.filter((b) => b !== "").join("\n") + "\n</testsuites>\n";
}

/** The seconds each process's tests took by their own times (`groupTimes`). */
export type GroupTimes = Record<Place | "alone", number>;

/** The process a test of `file` (as a JUnit report names it, `./tests/...`) named `test` runs in. */
export function groupOf(file: string, test: string): keyof GroupTimes {
  const path = file.replace(/^\.\//, "");
  const probe = path === BESIDE ? /--only (\w+)/.exec(test)?.[1] : undefined;
  return probe !== undefined && !runsProbe(probe, "beside") ? "alone" : placeOf(path);
}

/**
 * How long each process's tests took, by the times of a JUnit report of the whole suite
 * (`.ci/out/junit.xml`), as `PLACES` splits it now: to even the processes after tests are
 * added (`deno run --allow-read tools/test_groups.ts .ci/out/junit.xml`). Steps are not counted
 * (their test's time holds them); the processes' starts are not in the report.
 */
export function groupTimes(junit: string): GroupTimes {
  const times: GroupTimes = { output: 0, service: 0, reliability: 0, alone: 0 };
  const suites = junit.split(/<testsuite\s/).slice(1);
  for (const suite of suites) {
    const file = /^name="([^"]*)"/.exec(suite)?.[1] ?? "";
    for (
      const [, name, time] of suite.matchAll(/<testcase name="([^"]*)"[^>]*? time="([\d.]+)"/g)
    ) {
      if (name!.includes(" &gt; ")) continue;
      times[groupOf(file, name!)] += Number(time);
    }
  }
  return times;
}

/** A test a JUnit report says failed: its file, its name, its seconds and its message's first line. */
export interface FailedTest {
  file: string;
  name: string;
  seconds: number;
  message: string;
}

const ENTITIES: Record<string, string> = {
  "&apos;": "'",
  "&quot;": '"',
  "&gt;": ">",
  "&lt;": "<",
  "&amp;": "&",
};
const unescapeXml = (text: string) =>
  text.replace(/&(?:apos|quot|gt|lt|amp);/g, (e) => ENTITIES[e]!);

/**
 * The failed tests of a JUnit report (`<failure>` or `<error>` inside a `<testcase>`), in the
 * report's order: the runner names them once more at its very end, where a log's tail shows them
 * whichever process ran them.
 */
export function failedTests(junit: string): FailedTest[] {
  const failed: FailedTest[] = [];
  for (const suite of junit.split(/<testsuite\s/).slice(1)) {
    const file = /^name="([^"]*)"/.exec(suite)?.[1] ?? "";
    const cases = suite.matchAll(
      /<testcase name="([^"]*)"[^>]*? time="([\d.]+)"[^>]*>([\s\S]*?)<\/testcase>/g,
    );
    for (const [, name, time, body] of cases) {
      const fault = /<(?:failure|error) message="([^"]*)"/.exec(body!);
      if (!fault) continue;
      const message = unescapeXml(fault[1]!).split("\n").find((line) => line.trim() !== "") ?? "";
      failed.push({
        file,
        name: unescapeXml(name!),
        seconds: Number(time),
        message: message.trim(),
      });
    }
  }
  return failed;
}

if (import.meta.main) {
  const times = groupTimes(await Deno.readTextFile(Deno.args[0] ?? ".ci/out/junit.xml"));
  for (const [name, seconds] of Object.entries(times)) {
    console.log(`${name}: ${seconds.toFixed(0)} s`);
  }
}
