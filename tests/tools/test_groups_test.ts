import assert from "node:assert/strict";
import {
  ALONE_PROBES,
  BESIDE,
  failedTests,
  groupTimes,
  isTestFile,
  junitPathOf,
  mergeJunit,
  placeOf,
  runsProbe,
  testFilesUnder,
  testGroups,
} from "../../tools/test_groups.ts";
import { PROBES } from "../../tools/reliability/mod.ts";

const FILES = [
  "tests/integrations/companion/module_test.ts",
  "tests/main_test.ts",
  "tests/player/isf/isf_test.ts",
  "tests/player/mod_test.ts",
  "tests/player/output/sound_test.ts",
  "tests/server/ports_test.ts",
  "tests/server/rigs/group_test.ts",
  "tests/server/rigs/kill_test.ts",
  "tests/server/web/remote_test.ts",
  BESIDE,
  "tests/tools/test_groups_test.ts",
];

Deno.test("testGroups() runs each file in its place, side by side, each with its own JUnit report", () => {
  assert.deepEqual(testGroups(["--junit-path=out/j.xml"], FILES), [
    {
      name: "output",
      args: [
        "--junit-path=out/j.xml.output.xml",
        "tests/integrations/companion/module_test.ts",
        "tests/player/isf/isf_test.ts",
        "tests/player/output/sound_test.ts",
        "tests/server/web/remote_test.ts",
      ],
    },
    {
      name: "service",
      args: [
        "--junit-path=out/j.xml.service.xml",
        "tests/main_test.ts",
        "tests/player/mod_test.ts",
        "tests/server/ports_test.ts",
        "tests/server/rigs/kill_test.ts",
        "tests/tools/test_groups_test.ts",
      ],
    },
    {
      name: "reliability",
      args: ["--junit-path=out/j.xml.reliability.xml", "tests/server/rigs/group_test.ts", BESIDE],
      part: "beside",
    },
    {
      name: "alone",
      args: ["--junit-path=out/j.xml.alone.xml", BESIDE],
      part: "alone",
      isAfter: true,
    },
  ]);
  assert.deepEqual(testGroups(["--junit-path", "j.xml", "--fail-fast"], [BESIDE]), [
    {
      name: "reliability",
      args: ["--fail-fast", "--junit-path=j.xml.reliability.xml", BESIDE],
      part: "beside",
    },
    {
      name: "alone",
      args: ["--fail-fast", "--junit-path=j.xml.alone.xml", BESIDE],
      part: "alone",
      isAfter: true,
    },
  ]);
  assert.deepEqual(testGroups(["--filter", "OSC"], FILES), [
    { name: "suite", args: ["--filter", "OSC", "tests/"] },
  ]);
  assert.equal(junitPathOf(["--junit-path", "a.xml"]), "a.xml");
  assert.equal(junitPathOf(["--fail-fast"]), null);
});

Deno.test("placeOf(): the longest listed prefix wins; a file none lists runs in the service's process", () => {
  assert.equal(placeOf("tests/server/rigs/group_test.ts"), "reliability");
  assert.equal(placeOf("tests/server/rigs/kill_test.ts"), "service");
  assert.equal(placeOf("tests/server/web/remote_test.ts"), "output");
  assert.equal(placeOf(BESIDE), "reliability");
  assert.equal(placeOf("tests/new_folder/new_test.ts"), "service");
});

Deno.test("testFilesUnder() finds every file deno test would run in tests/, each once, in a place", () => {
  const files = testFilesUnder("tests");
  assert.ok(files.includes(BESIDE));
  assert.ok(files.includes("tests/tools/test_groups_test.ts"));
  assert.ok(
    files.every((f) => f.endsWith("_test.ts")),
    "helpers (tools/testing/) are no test files",
  );
  assert.equal(new Set(files).size, files.length);
  const groups = testGroups([], files).filter((g) => !g.isAfter);
  const placed = groups.flatMap((g) => g.args);
  assert.deepEqual([...placed].sort(), files);
  assert.ok(isTestFile("a_test.ts") && isTestFile("a.test.mjs") && isTestFile("test.ts"));
  assert.ok(!isTestFile("contest.ts") && !isTestFile("a_test.ts.bak"));
});

const report = (tests: number, failures: number, time: string, body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="deno test" tests="${tests}" ` +
  `failures="${failures}" errors="0" time="${time}">\n${body}\n</testsuites>\n`;

Deno.test("mergeJunit() sums the counts, keeps the longest time and every testsuite", () => {
  const a = report(3, 1, "600.5", '    <testsuite name="./a_test.ts" tests="3"></testsuite>');
  const b = report(2, 0, "350.25", '    <testsuite name="./b_test.ts" tests="2"></testsuite>');
  const merged = mergeJunit([a, b]);
  assert.match(
    merged,
    /<testsuites name="deno test" tests="5" failures="1" errors="0" time="600.500">/,
  );
  assert.equal(merged.match(/<testsuite /g)?.length, 2);
  assert.ok(merged.indexOf("a_test") < merged.indexOf("b_test"));
  assert.ok(merged.trimEnd().endsWith("</testsuites>"));
  assert.equal(merged.match(/<testsuites/g)?.length, 1);
  assert.throws(() => mergeJunit(["not xml"]), /report 1 has no <testsuites>/);
});

Deno.test("runsProbe(): the two parts run every probe once; unset runs them all", () => {
  const names = PROBES.map((p) => p.name);
  for (const name of ALONE_PROBES) assert.ok(names.includes(name), `${name} is a probe`);
  for (const name of names) {
    assert.equal(runsProbe(name, "beside") !== runsProbe(name, "alone"), true, name);
    assert.equal(runsProbe(name, undefined), true);
  }
  assert.equal(runsProbe("load", "beside"), false);
  assert.equal(runsProbe("load", "alone"), true);
  // The soak measures the browser's memory, not the machine: it runs beside the suite.
  assert.equal(runsProbe("gl_soak", "beside"), true);
  assert.equal(runsProbe("gl_soak", "alone"), false);
});

Deno.test("groupTimes() sums a JUnit report's test times by the process each test runs in", () => {
  const suite = (file: string, cases: [string, number][]) =>
    `    <testsuite name="./${file}" tests="${cases.length}">\n` +
    cases.map(([name, time]) =>
      `      <testcase name="${name}" classname="./${file}" time="${time}" line="1">\n      </testcase>\n`
    ).join("") +
    "    </testsuite>";
  const junit = report(
    7,
    0,
    "9",
    [
      suite(BESIDE, [
        ["deno task reliability --short --only gl_soak: a soak", 50],
        ["deno task reliability --short --only load: the show under stress-ng", 40],
        ["missedTargets() names every missed target", 1],
      ]),
      suite("tests/server/midi/network_test.ts", [["network MIDI", 13], [
        "network MIDI &gt; a step",
        3,
      ]]),
      suite("tests/server/ports_test.ts", [["ports", 2]]),
      suite("tests/server/rigs/group_test.ts", [["a group", 12]]),
      suite("tests/server/web/remote_test.ts", [["the remote", 8]]),
      suite("tests/player/output/sound_test.ts", [["sound", 20]]),
    ].join("\n"),
  );
  assert.deepEqual(groupTimes(junit), { output: 28, service: 2, reliability: 76, alone: 40 });
});

Deno.test("failedTests() names each failed or errored test of a report, with its message's first line", () => {
  const body = [
    '    <testsuite name="./tests/a_test.ts" tests="3" failures="1">',
    '        <testcase name="passes" classname="./tests/a_test.ts" time="0.5" line="1" col="1">',
    "        </testcase>",
    '        <testcase name="the player&apos;s &quot;frame&quot; &gt; a step" classname="./tests/a_test.ts" time="12.25" line="9" col="1">',
    '            <failure message="Uncaught AssertionError: 0 &lt; 1 &amp; more\nat line 3">AssertionError</failure>',
    "        </testcase>",
    "    </testsuite>",
    '    <testsuite name="./tests/b_test.ts" tests="1" errors="1">',
    '        <testcase name="leaks" classname="./tests/b_test.ts" time="1" line="3" col="1">',
    '            <error message="\nLeaks detected: a timer">Leaks</error>',
    "        </testcase>",
    "    </testsuite>",
  ].join("\n");
  assert.deepEqual(failedTests(report(4, 2, "13", body)), [
    {
      file: "./tests/a_test.ts",
      name: `the player's "frame" > a step`,
      seconds: 12.25,
      message: "Uncaught AssertionError: 0 < 1 & more",
    },
    { file: "./tests/b_test.ts", name: "leaks", seconds: 1, message: "Leaks detected: a timer" },
  ]);
  assert.deepEqual(
    failedTests(report(1, 0, "1", '    <testsuite name="./c_test.ts"></testsuite>')),
    [],
  );
});
