import assert from "node:assert/strict";
import {
  type Figure,
  formatTable,
  missedTargets,
  type ProbeResult,
  PROBES,
} from "../../tools/reliability/mod.ts";
import { isUndocumented5xx, Tally } from "../../tools/reliability/_tally.ts";
import { floodShortfalls } from "../../tools/reliability/mdns_flood.ts";
import { type Ip, jsonOf, removeNamespaces } from "../../tools/reliability/_netns.ts";
import { withMdnsPort } from "../../tools/testing/mdns_port.ts";
import { PART_ENV, runsProbe } from "../../tools/test_groups.ts";

const ROOT = new URL("../../", import.meta.url);
const SEED = 1;

/** `deno task reliability` as deno.json declares it, with its permission flags. */
const TASK: string[] = (() => {
  const config = JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT)));
  const [deno, ...args] = (config.tasks.reliability as string).split(/\s+/);
  assert.equal(deno, "deno");
  return args.map((a) => (a.endsWith(".ts") ? new URL(a, ROOT).pathname : a));
})();

async function reliability(args: string[]) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [...TASK, ...args],
    cwd: ROOT.pathname,
    env: { RUST_BACKTRACE: "0" },
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, out: decode(stdout), err: decode(stderr) };
}

function row(overrides: Partial<ProbeResult> = {}): ProbeResult {
  return {
    probe: "example",
    inputs: 10,
    requiredInputs: 0,
    shortfalls: [],
    crashes: 0,
    hangs: 0,
    undocumented5xx: 0,
    acked: null,
    lost: null,
    duplicates: null,
    peakRssMb: { service: 80, player: 100 },
    localServed: null,
    playerRestarts: 0,
    localP99Ms: 12.5,
    seconds: 1,
    notes: [],
    figures: [],
    error: null,
    ...overrides,
  };
}

Deno.test("missedTargets() names every missed target with its measurement", () => {
  assert.deepEqual(missedTargets(row()), []);
  assert.deepEqual(
    missedTargets(row({
      crashes: 1,
      playerRestarts: 2,
      hangs: 2,
      acked: 40,
      lost: 3,
      duplicates: 2,
      peakRssMb: { service: 941, player: 100 },
      localServed: false,
      undocumented5xx: 126,
      inputs: 5,
      requiredInputs: 100_000,
      shortfalls: ["3 player kills (target 15)"],
    })),
    [
      "1 crash(es)",
      "2 player restart(s)",
      "2 hang(s)",
      "3 of 40 acknowledged lost",
      "2 retried key(s) applied more than once",
      "service peak RSS 941 MB (target < 300)",
      "local clients not served throughout",
      "126 undocumented 5xx (target 0)",
      "3 player kills (target 15)",
      "5 inputs (target 100000)",
    ],
  );
  const table = formatTable([row(), row({ probe: "bad", hangs: 1 })], { seed: 7, mode: "short" });
  assert.match(table, /seed 7/);
  assert.match(table, /^bad .* MISSED$/m);
  assert.match(table, / dup /);
  assert.match(table, / restarts .* local p99 ms /);
  assert.match(table, /^example .* 12\.5 /m);
  assert.match(table, /^total .* 1 MISSED$/m);
});

Deno.test("isUndocumented5xx(): only the 5xx docs/api.md promises pass; a refused action is the spec's 500", () => {
  const documented: [number, string][] = [
    [503, "NOT_READY"],
    [503, "TOO_MANY_CONNECTIONS"],
    [504, "TIMEOUT"],
    [507, "DISK_FULL"],
    // The 6.0 interface (section 7): a refused action is always 500, the reason in the message.
    [500, "ACTION_FAILED"],
  ];
  for (const [status, code] of documented) assert.equal(isUndocumented5xx(status, code), false);
  const undocumented: [number, string | null][] = [
    [500, "SERVER_ERROR"],
    [500, null],
    [502, null],
    // What a request needs but is not on the machine is no answer a fuzzer should get.
    [503, "UNAVAILABLE"],
    [503, "ACTION_FAILED"],
    [500, "NOT_READY"],
  ];
  for (const [status, code] of undocumented) assert.equal(isUndocumented5xx(status, code), true);
  for (const status of [200, 304, 400, 409, 429, null]) {
    assert.equal(isUndocumented5xx(status, null), false);
  }
});

Deno.test("missedTargets() holds a probe to its own peak RSS target where it has one", () => {
  const heavy = { peakRssMb: { service: 450, player: 100 } };
  assert.deepEqual(missedTargets(row({ ...heavy, maxRssMb: 600 })), []);
  assert.deepEqual(missedTargets(row(heavy)), ["service peak RSS 450 MB (target < 300)"]);
  assert.deepEqual(missedTargets(row({ ...heavy, maxRssMb: 400 })), [
    "service peak RSS 450 MB (target < 400)",
  ]);
});

Deno.test("missedTargets(): a figure the probe must report and did not is missed, never ok", () => {
  const figures: Figure[] = ["serviceRss", "playerRss", "localServed", "acked"];
  assert.deepEqual(missedTargets(row({ figures, localServed: true, acked: 4, lost: 0 })), []);
  assert.deepEqual(
    missedTargets(row({
      figures,
      peakRssMb: { service: null, player: null },
      localServed: null,
      acked: null,
    })),
    [
      "the service's peak RSS not measured",
      "the player's peak RSS not measured",
      "whether local clients were served not measured",
      "acknowledged edits not measured",
    ],
  );
  // A kill probe's "0 of 0 lost": nothing acknowledged, so nothing tested.
  assert.deepEqual(missedTargets(row({ figures: ["acked"], acked: 0, lost: 0 })), [
    "0 edits acknowledged: nothing was tested",
  ]);
  // Not required: null stays "does not apply".
  assert.deepEqual(missedTargets(row({ localServed: null, acked: null })), []);
  const table = formatTable([
    row({ figures: ["playerRss"], peakRssMb: { service: 1, player: null } }),
  ], {
    seed: 7,
    mode: "short",
  });
  assert.match(table, /^example .* MISSED$/m);
  assert.match(table, /MISSED the player's peak RSS not measured/);
});

Deno.test("the probes that check a figure require it: RSS, local clients served, acknowledged edits", () => {
  const figures = (name: string) => PROBES.find((p) => p.name === name)?.figures;
  for (const name of ["player_kill", "service_kill"]) {
    assert.deepEqual(figures(name), ["serviceRss", "playerRss", "acked"], name);
  }
  for (const name of ["exhaustion", "slow_ws_client", "ws_fuzz", "mcp_streams", "mdns_flood"]) {
    assert.deepEqual(figures(name), ["serviceRss", "playerRss", "localServed"], name);
  }
});

Deno.test("floodShortfalls(): an amplification of 0 with an address never answered is missed", () => {
  const answered = { sent: 300, queries: 10, received: 100, answers: 3 };
  assert.deepEqual(floodShortfalls([answered, answered]), []);
  const silent = { sent: 300, queries: 10, received: 0, answers: 0 };
  assert.deepEqual(floodShortfalls([silent, silent]), [
    "2 of 2 addresses got no answer: nothing shows their queries arrived",
  ]);
  assert.deepEqual(floodShortfalls([answered, silent]), [
    "1 of 2 addresses got no answer: nothing shows their queries arrived",
  ]);
  assert.deepEqual(floodShortfalls([]), [
    "0 of 0 addresses got no answer: nothing shows their queries arrived",
  ]);
  assert.deepEqual(floodShortfalls([{ ...answered, received: 900 }]), [
    "mDNS answers amplify a flood 3.00x (at most 1x)",
  ]);
});

Deno.test("a probe that could not run is NOT RUN with its reason, a missed target, never passed", () => {
  const skipped = row({
    probe: "netns",
    notRun: "making network namespaces needs root (uid 1000)",
  });
  assert.deepEqual(missedTargets(skipped), [
    "not run: making network namespaces needs root (uid 1000)",
  ]);
  const table = formatTable([row(), skipped], { seed: 7, mode: "short" });
  assert.match(table, /^netns .* NOT RUN$/m);
  assert.match(table, /^total .* 1 MISSED$/m);
  assert.match(table, /MISSED not run: making network namespaces needs root/);
});

Deno.test("Tally.absorb() takes a row made in another process: counts, peaks, notes, shortfalls", () => {
  const tally = new Tally();
  tally.inputs = 5;
  tally.absorb(row({
    inputs: 160,
    hangs: 1,
    undocumented5xx: 2,
    playerRestarts: 1,
    localServed: true,
    localP99Ms: 91.8,
    peakRssMb: { service: 103, player: 105 },
    notes: ["160 unicast queries sent"],
    shortfalls: ["80 of 80 queries to 10.53.1.1 not answered right"],
  }));
  const r = tally.result("netns", 14);
  assert.equal(r.inputs, 165);
  assert.equal(r.hangs, 1);
  assert.equal(r.undocumented5xx, 2);
  assert.equal(r.playerRestarts, 1);
  assert.equal(r.localServed, true);
  assert.equal(r.localP99Ms, 91.8);
  assert.deepEqual(r.peakRssMb, { service: 103, player: 105 });
  assert.deepEqual(r.notes, ["160 unicast queries sent"]);
  assert.deepEqual(r.shortfalls, ["80 of 80 queries to 10.53.1.1 not answered right"]);
});

/** A process with its stdout piped, as `denoIn` starts one: `sh -c script`. */
function shell(script: string): Deno.ChildProcess {
  return new Deno.Command("sh", { args: ["-c", script], stdin: "null", stdout: "piped" }).spawn();
}

Deno.test("jsonOf() takes the last line a script printed, and kills one still running at its deadline", async () => {
  const done = shell(`echo 'a log line'; echo '{"answered":3}'`);
  assert.deepEqual(await jsonOf(done, "the asker", 60_000), { answered: 3 });
  const hung = shell("exec sleep 600");
  await assert.rejects(
    jsonOf(hung, "the asker in ns-c1", 50),
    /^Error: the asker in ns-c1 did not finish within 0.05 s \(killed\)$/,
  );
  assert.equal((await hung.status).signal, "SIGKILL");
});

Deno.test("removeNamespaces() removes every namespace, and reports each one it could not", async () => {
  const calls: string[] = [];
  const ip: Ip = (args) => {
    calls.push(args.join(" "));
    const isBusy = args[1] === "del" && args[2] === "ns-c1";
    return Promise.resolve(
      isBusy
        ? {
          ok: false,
          text: 'Cannot remove namespace file "/run/netns/ns-c1": Device or resource busy',
        }
        : { ok: true, text: "" },
    );
  };
  assert.deepEqual(await removeNamespaces(["ns-svc", "ns-c1", "ns-c2"], ip), [
    'ip netns del ns-c1: Cannot remove namespace file "/run/netns/ns-c1": Device or resource busy',
  ]);
  assert.deepEqual(calls, [
    "netns pids ns-svc",
    "netns del ns-svc",
    "netns pids ns-c1",
    "netns del ns-c1",
    "netns pids ns-c2",
    "netns del ns-c2",
  ]);
  assert.deepEqual(
    await removeNamespaces(["ns-svc"], () => Promise.resolve({ ok: true, text: "" })),
    [],
  );
});

Deno.test("deno task reliability refuses an unknown probe, naming the known ones", async () => {
  const { code, err } = await reliability(["--only", "nope"]);
  assert.equal(code, 2);
  assert.match(err, /Unknown probe "nope": use one of http_fuzz, /);
});

Deno.test("deno task reliability --only load without stress-ng is NOT RUN with the reason, and missed", async () => {
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: [...TASK, "--short", "--seed", "1", "--only", "load", "--json"],
    cwd: ROOT.pathname,
    env: { RUST_BACKTRACE: "0", PATH: "/nonexistent" },
  }).output();
  assert.equal(code, 1);
  const r = (JSON.parse(new TextDecoder().decode(stdout)) as { results: ProbeResult[] })
    .results[0]!;
  assert.equal(r.notRun, "stress-ng not found (tools/peers.ts; Debian: apt-get install stress-ng)");
  assert.deepEqual(missedTargets(r), [`not run: ${r.notRun}`]);
});

// One test per probe: CI shows which target each one misses, with the measurements.
for (const probe of PROBES.filter((p) => runsProbe(p.name, Deno.env.get(PART_ENV)))) {
  Deno.test(`deno task reliability --short --only ${probe.name}: ${probe.summary}`, async () => {
    const args = ["--short", "--seed", String(SEED), "--only", probe.name, "--json"];
    // The flood shares UDP 5353 with the discovery tests, which run beside it.
    const { out, err } = await (probe.name === "mdns_flood"
      ? withMdnsPort(() =>
        reliability(args)
      )
      : reliability(args));
    const report = JSON.parse(out) as { results: ProbeResult[] };
    const r = report.results[0]!;
    const context = `\n${r.notes.join("\n")}\n${err.slice(-2000)}`;
    assert.equal(r.error, null, `the probe did not complete: ${r.error}`);
    assert.equal(r.crashes, 0, `crashes${context}`);
    assert.equal(r.playerRestarts, 0, `player restarts${context}`);
    assert.equal(r.hangs, 0, `hangs${context}`);
    if (r.lost !== null) {
      assert.equal(r.lost, 0, `${r.lost} of ${r.acked} acknowledged lost${context}`);
    }
    if (r.duplicates !== null) {
      assert.equal(r.duplicates, 0, `${r.duplicates} retried key(s) applied twice${context}`);
    }
    for (const role of ["service", "player"] as const) {
      const mb = r.peakRssMb[role];
      const target = r.maxRssMb ?? 300;
      if (mb !== null) {
        assert.ok(mb < target, `${role} peak RSS ${mb} MB, target < ${target}${context}`);
      }
    }
    if (r.localServed !== null) {
      assert.equal(r.localServed, true, `local clients not served${context}`);
    }
    assert.deepEqual(missedTargets(r), [], `missed targets${context}`);
  });
}
