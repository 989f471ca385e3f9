import assert from "node:assert/strict";
import {
  ALONE_PROBES,
  BESIDE,
  besideServerTests,
  groupTimes,
  junitPathOf,
  mergeJunit,
  runsProbe,
  testGroups,
} from "../../tools/test_groups.ts";
import { PROBES } from "../../tools/reliability/mod.ts";

Deno.test("testGroups() runs the reliability probes beside the rest, each with its own JUnit report", () => {
  assert.deepEqual(testGroups(["--junit-path=out/j.xml"]), [
    { name: "suite", args: ["--junit-path=out/j.xml.suite.xml", `--ignore=${BESIDE}`, "tests/"] },
    {
      name: "reliability",
      args: ["--junit-path=out/j.xml.reliability.xml", BESIDE],
      part: "beside",
    },
    {
      name: "alone",
      args: ["--junit-path=out/j.xml.alone.xml", BESIDE],
      part: "alone",
      isAfter: true,
    },
  ]);
  assert.deepEqual(testGroups(["--junit-path", "j.xml", "--fail-fast"]).map((g) => g.args), [
    ["--fail-fast", "--junit-path=j.xml.suite.xml", `--ignore=${BESIDE}`, "tests/"],
    ["--fail-fast", "--junit-path=j.xml.reliability.xml", BESIDE],
    ["--fail-fast", "--junit-path=j.xml.alone.xml", BESIDE],
  ]);
  assert.deepEqual(testGroups([]).map((g) => g.args), [
    [`--ignore=${BESIDE}`, "tests/"],
    [BESIDE],
    [BESIDE],
  ]);
  assert.deepEqual(testGroups(["--filter", "OSC"]), [
    { name: "suite", args: ["--filter", "OSC", "tests/"] },
  ]);
  assert.equal(junitPathOf(["--junit-path", "a.xml"]), "a.xml");
  assert.equal(junitPathOf(["--fail-fast"]), null);
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

Deno.test("testGroups() runs the service's tests but the web remote's in a process of their own, beside the suite and the probes", () => {
  const groups = testGroups(["--junit-path=j.xml"], [
    "web",
    "routes",
    "rigs",
    "midi",
    "ports_test.ts",
  ]);
  const moved = [
    "tests/server/midi",
    "tests/server/ports_test.ts",
    "tests/server/rigs",
    "tests/server/routes",
  ];
  assert.deepEqual(groups.map((g) => g.name), ["suite", "server", "reliability", "alone"]);
  const [suite, server, beside, alone] = groups;
  assert.deepEqual(server, { name: "server", args: ["--junit-path=j.xml.server.xml", ...moved] });
  assert.deepEqual(beside!.args, ["--junit-path=j.xml.reliability.xml", BESIDE]);
  assert.deepEqual(suite!.args, [
    "--junit-path=j.xml.suite.xml",
    `--ignore=${[BESIDE, ...moved].join(",")}`,
    "tests/",
  ]);
  assert.deepEqual(alone!.args, ["--junit-path=j.xml.alone.xml", BESIDE]);
  assert.equal(alone!.isAfter, true);
  assert.deepEqual(besideServerTests(["web"]), []);
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
  assert.deepEqual(groupTimes(junit), { suite: 28, server: 27, reliability: 51, alone: 40 });
});
