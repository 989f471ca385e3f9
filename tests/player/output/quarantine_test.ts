/**
 * The output's shader quarantine decides from progress, not speed: a page whose reports keep
 * coming without frames, or that is silent while its browser burns CPU, after a shader change,
 * gets the preset changed last quarantined (logged with its id and name), then its browser
 * started again if it still draws nothing; a heavy shader drawing one frame a second, a
 * browser starting, a page loading, a hidden page and a frozen machine are never judged.
 * On injected timers and a stand-in CPU reader: no time passes.
 */
import assert from "node:assert/strict";
import type { Preset } from "../../../protocol/model.ts";
import type { RenderState } from "../../../protocol/output.ts";
import type { IsfPrograms } from "../../../player/output/isf_programs.ts";
import { OutputQuarantine } from "../../../player/output/quarantine.ts";
import {
  KNOWN_DRAWN_CPU_MS_PER_CORE,
  KNOWN_DRAWN_REPORTS,
  RECOVER_CPU_MS_PER_CORE,
  RECOVER_REPORTS,
  RECOVER_SILENT_CHECKS,
  STALL_CPU_MS_PER_CORE,
  STALL_REPORTS,
  STALL_SILENT_CHECKS,
} from "../../../player/output/quarantine_watch.ts";

/** Programs named `isf-<presetId>-<version>`, each of its preset "Preset <id>". */
const programs = {
  named: (name: string) => {
    const [, presetId] = /^isf-(\w+)-\d+$/.exec(name) ?? [];
    return presetId ? { presetId, presetName: `Preset ${presetId}` } : null;
  },
  of: (preset: Preset) => ({ wire: { name: `isf-${preset.id}-1` } }),
} as unknown as IsfPrograms;

let seq = 0;
/** A state drawing `programs` as Effects of one layer (each a new seq). */
function state(...names: string[]): RenderState {
  const effects = names.map((program) => ({ program, uniforms: {} }));
  return { seq: ++seq, layers: [{ effects }], visualizers: [] } as unknown as RenderState;
}

/**
 * A quarantine whose timer runs only by `tick`, the browser's CPU time set by the test, its
 * browser on `cores` cores. The page reports the last state pushed as the one it draws.
 */
function quarantine(cores = 1) {
  const lines: string[] = [];
  const quarantined: string[] = [];
  let restarts = 0;
  let tickFn = () => {};
  const cpu = { ms: 0 as number | null };
  const machine = { load: null as number | null };
  const page = { isOpen: true };
  const q = new OutputQuarantine({
    programs,
    quarantine: (presetId, reason) => void quarantined.push(`${presetId}: ${reason}`),
    restart: () => void restarts++,
    pid: () => 4242,
    log: (level, message) => lines.push(`${level}: ${message}`),
    setInterval: (fn) => {
      tickFn = fn;
      return 1;
    },
    clearInterval: () => {},
    cpuMs: () => cpu.ms,
    loadAverage: () => machine.load,
    isPageOpen: () => page.isOpen,
    cores,
  });
  /** One second: the page reports `frames` (null: sends nothing), the browser uses `cpuMs`. */
  const second = (frames: number | null, cpuMs = 300, visibility = "visible") => {
    if (frames !== null) q.report({ frames, visibility, seq });
    if (cpu.ms !== null) cpu.ms += cpuMs;
    tickFn();
  };
  const seconds = (n: number, frames: number | null, cpuMs?: number) => {
    for (let i = 0; i < n; i++) second(frames, cpuMs);
  };
  /** A started browser whose page loaded and draws `names`, 30 frames a second. */
  const drawing = (...names: string[]) => {
    q.browserStarted();
    q.pageLoaded("ANGLE");
    q.statePushed(state(...names));
    seconds(KNOWN_DRAWN_REPORTS, 30);
  };
  return {
    q,
    lines,
    quarantined,
    cpu,
    machine,
    page,
    second,
    seconds,
    drawing,
    get restarts() {
      return restarts;
    },
  };
}

Deno.test("OutputQuarantine quarantines the preset whose shader left the page reporting no frames", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  t.seconds(STALL_REPORTS - 1, 0);
  assert.deepEqual(t.quarantined, [], "not before the bound");
  t.second(0);
  assert.equal(t.quarantined.length, 1);
  assert.equal(t.quarantined[0], `B: the page drew no frame in ${STALL_REPORTS} reports in a row`);
  assert.match(t.lines.at(-1)!, /^error: Output: preset "Preset B" \(B\) quarantined: /);
  // The preset is off the output (the player redraws without it); the page recovers.
  t.q.statePushed(state("isf-A-1"));
  t.seconds(10, 30);
  assert.equal(t.restarts, 0);
  assert.equal(t.quarantined.length, 1);
});

Deno.test("OutputQuarantine starts the browser again when the page still draws nothing once the preset is off", () => {
  const t = quarantine();
  t.drawing();
  t.q.statePushed(state("isf-B-1"));
  t.seconds(STALL_REPORTS, 0);
  t.q.statePushed(state());
  t.seconds(RECOVER_REPORTS - 1, 0);
  assert.equal(t.restarts, 0, "not before the recovery bound");
  t.second(0);
  assert.equal(t.restarts, 1);
  assert.match(t.lines.at(-1)!, /stuck in the draw\); starting the browser again \(/);
  assert.equal(t.quarantined.length, 1, "one quarantine");
  // The new browser is starting: silence and CPU are its start, not a stall.
  t.seconds(30, null, 900);
  assert.equal(t.restarts, 1);
});

Deno.test("OutputQuarantine: a page silent while its browser burns CPU is stalled at the CPU bound, before its silent looks", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  // A quiet machine: the stuck draw takes the browser's core, 1 s of CPU a second.
  t.seconds(STALL_CPU_MS_PER_CORE / 1000 - 1, null, 1000);
  assert.deepEqual(t.quarantined, []);
  t.second(null, 1000);
  assert.match(
    t.quarantined[0]!,
    /^B: the page sent nothing while its browser used 3\.0 s of CPU \(1 cores\)$/,
  );
  // A silent page cannot take the state without B: its browser is started again at once.
  assert.equal(t.restarts, 1);
  assert.match(t.lines.at(-1)!, /stuck in the preset's draw; starting the browser again \(/);
  // The new browser starting burns CPU in silence: not a stall, not another restart.
  t.seconds(RECOVER_CPU_MS_PER_CORE / 500 + 10, null, 500);
  assert.equal(t.restarts, 1);
  assert.equal(t.quarantined.length, 1);
});

Deno.test("OutputQuarantine never judges a heavy shader drawing one frame a second on a busy machine", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-H-1"));
  for (let i = 0; i < 600; i++) {
    // A report a second with one frame; a second in two the report is late (no message).
    t.second(i % 2 === 0 ? 1 : null, 1000);
  }
  assert.deepEqual(t.quarantined, []);
  assert.equal(t.restarts, 0);
});

Deno.test("OutputQuarantine never judges a starting browser, a loading page, a hidden page or a frozen machine", () => {
  const t = quarantine();
  t.q.browserStarted();
  t.seconds(60, null, 1000);
  t.q.pageLoaded("ANGLE");
  t.seconds(60, 0, 1000);
  assert.deepEqual(t.quarantined, [], "a page with no state yet draws nothing by right");
  t.q.statePushed(state("isf-B-1"));
  for (let i = 0; i < 60; i++) t.second(0, 1000, "hidden");
  assert.deepEqual(t.quarantined, [], "a hidden page gets no animation frames");
  t.seconds(60, null, 0);
  assert.deepEqual(t.quarantined, [], "no message and no CPU: frozen, not the shader's doing");
  t.seconds(KNOWN_DRAWN_REPORTS, 30);
  t.cpu.ms = null;
  t.seconds(60, null);
  assert.deepEqual(t.quarantined, [], "CPU unknown and B drawn since: no suspect");
  assert.equal(t.restarts, 0);
});

Deno.test("OutputQuarantine blames the preset changed last: added to the state, or its code changed", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  t.seconds(3, 30);
  t.q.statePushed(state("isf-A-2", "isf-B-1"));
  t.seconds(STALL_REPORTS, 0);
  assert.match(t.quarantined[0]!, /^A: /, "A's code changed after B went on");
});

Deno.test("OutputQuarantine quarantines nothing when no preset is drawn", () => {
  const t = quarantine();
  t.drawing();
  t.seconds(20, 0);
  t.seconds(20, null, 1000);
  assert.deepEqual(t.quarantined, []);
  assert.equal(t.restarts, 0, "the browser's health sees to a page stalled without a shader");
});

Deno.test("OutputQuarantine blames the preset the editor window previews when it is the newest (same GPU process)", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  const previewed = { id: "E", name: "Edited", type: "isf", builtIn: false, quarantine: null };
  t.q.statePushed(state("isf-A-1"), previewed as unknown as Preset);
  t.seconds(STALL_REPORTS, 0);
  assert.equal(t.quarantined.length, 1);
  assert.match(t.quarantined[0]!, /^E: /);
  assert.match(t.lines.at(-1)!, /preset "Edited" \(E\) quarantined/);
});

Deno.test("OutputQuarantine blames no preset for a stall long after the last change, and none after the restart", () => {
  // The reviewer's run: ten minutes of drawing, then a stall no preset caused (a GPU, a video).
  const t = quarantine();
  t.drawing("isf-A-1", "isf-B-1");
  t.seconds(600, 30);
  t.seconds(STALL_REPORTS * 4, 0);
  t.seconds(30, null, 1000);
  assert.deepEqual(t.quarantined, [], "B changed before frames the page drew for minutes");
  // The browser started again (its health, a crash): the next preset in line is no suspect.
  t.q.browserStarted();
  t.q.pageLoaded("ANGLE");
  t.q.statePushed(state("isf-A-1"));
  t.seconds(STALL_REPORTS * 4, 0);
  assert.deepEqual(t.quarantined, []);
  assert.equal(t.restarts, 0);
  assert.equal(t.q.isSuspecting, false);
});

Deno.test("OutputQuarantine: frames counted in the first reports after a change do not clear it (drawn before its program compiled)", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  // The page drew (B's program compiling meanwhile, or its first frame unfinished), then nothing.
  t.seconds(KNOWN_DRAWN_REPORTS - 1, 2);
  assert.equal(t.q.isSuspecting, true);
  t.seconds(STALL_REPORTS, 0);
  assert.match(t.quarantined[0] ?? "", /^B: /);
});

Deno.test("OutputQuarantine: a heavy shader whose frames come between reports of none stays a suspect", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-H-1"));
  for (let i = 0; i < 10; i++) t.seconds(1, 1), t.seconds(STALL_REPORTS - 1, 0);
  assert.equal(t.q.isSuspecting, true);
  t.seconds(STALL_REPORTS, 0);
  assert.match(t.quarantined[0] ?? "", /^H: /);
});

Deno.test("OutputQuarantine: a change the page drew on past is no suspect of a later stall", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  t.seconds(KNOWN_DRAWN_REPORTS, 1);
  assert.equal(t.q.isSuspecting, false);
  t.seconds(STALL_REPORTS * 3, 0);
  assert.deepEqual(t.quarantined, []);
  // A new change after the last frame drawn is the one suspect.
  t.q.statePushed(state("isf-A-1", "isf-B-1", "isf-C-1"));
  t.seconds(STALL_REPORTS, 0);
  assert.deepEqual(t.quarantined.map((line) => line[0]), ["C"]);
});

Deno.test("OutputQuarantine: the CPU bound is per core the browser may use (software GL draws on all)", () => {
  const t = quarantine(2);
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-H-1"));
  // A heavy shader: a 1.5 s frame on both cores is 3 s of CPU, then a report with a frame.
  for (let i = 0; i < 60; i++) {
    t.second(null, 2000);
    t.second(1, 1000);
  }
  assert.deepEqual(t.quarantined, []);
  t.q.statePushed(state("isf-A-1", "isf-H-1", "isf-E-1"));
  t.seconds(2 * STALL_CPU_MS_PER_CORE / 2000 - 1, null, 2000);
  assert.deepEqual(t.quarantined, []);
  t.second(null, 2000);
  assert.match(t.quarantined[0]!, /^E: .* 6\.0 s of CPU \(2 cores\)$/);
});

Deno.test("OutputQuarantine: CPU time unknown (outside Linux), a page silent after a suspect's change is stalled", () => {
  const t = quarantine();
  t.cpu.ms = null;
  t.drawing("isf-A-1");
  t.seconds(STALL_SILENT_CHECKS * 2, null);
  assert.deepEqual(t.quarantined, [], "no suspect: silence alone blames no preset");
  t.seconds(KNOWN_DRAWN_REPORTS, 30);
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  t.seconds(STALL_SILENT_CHECKS - 1, null);
  assert.deepEqual(t.quarantined, [], "not before the bound");
  t.second(null);
  assert.equal(
    t.quarantined[0],
    `B: the page sent nothing in ${STALL_SILENT_CHECKS} looks in a row`,
  );
  t.seconds(RECOVER_SILENT_CHECKS, null);
  assert.equal(t.restarts, 1);
});

Deno.test("OutputQuarantine: a hidden page's silence is no stall (its timers may run once a minute)", () => {
  const t = quarantine();
  t.cpu.ms = null;
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  t.second(0, 300, "hidden");
  t.seconds(STALL_SILENT_CHECKS * 10, null);
  assert.deepEqual(t.quarantined, []);
});

Deno.test("OutputQuarantine judges no page without WebGL2 (the GL rule sees to it), and says no shader is suspected", () => {
  const t = quarantine();
  t.q.browserStarted();
  t.q.pageLoaded("unavailable");
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  t.seconds(STALL_REPORTS * 3, 0);
  assert.deepEqual(t.quarantined, []);
  assert.equal(t.q.isSuspecting, false);
});

Deno.test("OutputQuarantine.isSuspecting: from a change not drawn past until the page draws again once the suspect is off", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  t.seconds(KNOWN_DRAWN_REPORTS, 30);
  assert.equal(t.q.isSuspecting, false);
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  assert.equal(t.q.isSuspecting, true, "B is not drawn yet");
  t.seconds(STALL_REPORTS, 0);
  t.q.statePushed(state("isf-A-1"));
  assert.equal(t.q.isSuspecting, true, "B is off, the page has not drawn since");
  t.second(30);
  assert.equal(t.q.isSuspecting, false);
});

Deno.test("OutputQuarantine.isSuspecting: from the restart for a suspect's stall until the new page says hello", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  t.seconds(STALL_REPORTS, 0);
  t.q.statePushed(state("isf-A-1"));
  t.seconds(RECOVER_REPORTS, 0);
  assert.equal(t.restarts, 1);
  // The old page's GL claim, confirmed by the very report that restarted it: the shader's.
  assert.equal(t.q.isSuspecting, true);
  t.q.browserStarted();
  assert.equal(t.q.isSuspecting, true);
  t.q.pageLoaded("ANGLE");
  t.q.statePushed(state("isf-A-1"));
  assert.equal(t.q.isSuspecting, false, "the new page losing its GL is the GPU's");
});

Deno.test("OutputQuarantine: a page silent for STALL_SILENT_CHECKS looks while its browser works is stalled, however little CPU it gets", () => {
  const t = quarantine(2);
  t.drawing("isf-A-1");
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  // A busy machine: the browser gets 200 ms of CPU a second, far from 6 s of CPU.
  t.seconds(STALL_SILENT_CHECKS - 1, null, 200);
  assert.deepEqual(t.quarantined, [], "not before the bound");
  t.second(null, 200);
  assert.equal(
    t.quarantined[0],
    `B: the page sent nothing in ${STALL_SILENT_CHECKS} looks in a row`,
  );
  assert.equal(t.restarts, 1, "silent: started again at once");
});

Deno.test("OutputQuarantine: on software GL a page drawing nothing is judged by the CPU its browser used since its last frame, and restarted with the quarantine", () => {
  const t = quarantine();
  t.q.browserStarted();
  t.q.pageLoaded("ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)");
  t.q.statePushed(state("isf-A-1"));
  t.seconds(KNOWN_DRAWN_REPORTS, 30);
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  // Slow, not stuck: a frame every 12 s while the browser gets 200 ms of CPU a second.
  for (let i = 0; i < 5; i++) {
    t.seconds(STALL_REPORTS * 4 - 1, 0, 200);
    t.second(1, 200);
  }
  assert.deepEqual(t.quarantined, [], "12 reports without a frame, 2.4 s of CPU: drawing");
  t.seconds(STALL_CPU_MS_PER_CORE / 1000 - 1, 0, 1000);
  assert.deepEqual(t.quarantined, [], "not before the CPU bound");
  t.second(0, 1000);
  assert.equal(
    t.quarantined[0],
    "B: the page drew no frame while its browser used 3.0 s of CPU (1 cores)",
  );
  assert.equal(t.restarts, 1, "at once, not after RECOVER_REPORTS more");
  assert.match(
    t.lines.at(-1)!,
    /\(3 reports without a frame, .* 3\.0 s of CPU a core since the last frame/,
  );
});

Deno.test("OutputQuarantine: a slow page on software GL, silent behind its frames on a starved machine, is no stall (page_forgery beside stress-ng, load 17.7)", () => {
  // Measured: quarantined (and its browser started again) with 2 reports without a frame, then
  // 5 silent looks, the browser using 0.24 s of CPU a second on 2 cores, at load average 17.68.
  const t = quarantine(2);
  t.q.browserStarted();
  t.q.pageLoaded("ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)");
  t.q.statePushed(state("isf-A-1"));
  t.seconds(KNOWN_DRAWN_REPORTS, 30);
  t.machine.load = 17.68;
  const previewed = { id: "E", name: "Blur", type: "isf", builtIn: false, quarantine: null };
  t.q.statePushed(state("isf-A-1"), previewed as unknown as Preset);
  for (let i = 0; i < 20; i++) {
    t.seconds(2, 0, 240);
    t.seconds(STALL_SILENT_CHECKS, null, 240);
    t.second(1, 240);
  }
  assert.deepEqual(t.quarantined, []);
  assert.equal(t.restarts, 0);
});

Deno.test("OutputQuarantine: on a GPU, the bounds in reports and looks stretch with the machine's load for each core", () => {
  const t = quarantine(2);
  t.drawing("isf-A-1");
  t.machine.load = 10;
  t.q.statePushed(state("isf-A-1", "isf-C-1"));
  t.seconds(STALL_REPORTS * 5 - 1, 0, 0);
  assert.deepEqual(t.quarantined, [], "load 10 on 2 cores: five times the reports");
  t.second(0, 0);
  assert.equal(
    t.quarantined[0],
    `C: the page drew no frame in ${STALL_REPORTS * 5} reports in a row`,
  );
  t.q.statePushed(state("isf-A-1"));
  t.seconds(KNOWN_DRAWN_REPORTS, 30);
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  t.seconds(STALL_SILENT_CHECKS * 5 - 1, null, 200);
  assert.equal(t.quarantined.length, 1, "five times the looks");
  t.second(null, 200);
  assert.equal(
    t.quarantined[1],
    `B: the page sent nothing in ${STALL_SILENT_CHECKS * 5} looks in a row`,
  );
  assert.equal(t.restarts, 1);
});

Deno.test("OutputQuarantine: a page loaded again, silent while it compiles on a busy machine, is judged by its CPU, not its looks, until its first frame", () => {
  const t = quarantine(2);
  t.drawing("isf-A-1");
  const previewed = { id: "E", name: "Edited", type: "isf", builtIn: false, quarantine: null };
  t.q.statePushed(state("isf-A-1"), previewed as unknown as Preset);
  t.seconds(2, 30);
  // The output's window closed and came back: its page loads again in the same browser and
  // compiles its programs, the browser getting 200 ms of CPU a second beside stress-ng.
  t.q.pageLoaded("ANGLE (SwiftShader Device (Subzero))");
  t.q.statePushed(state("isf-A-1"), previewed as unknown as Preset);
  t.seconds(STALL_SILENT_CHECKS * 4, null, 200);
  assert.deepEqual(t.quarantined, [], "slow is not dead: 4 s of CPU, under the 6 s bound");
  t.second(30);
  // Drawing: on software GL a silent page is judged by its CPU still, not by its looks.
  t.q.statePushed(state("isf-A-1", "isf-B-1"), previewed as unknown as Preset);
  t.seconds(STALL_SILENT_CHECKS * 4, null, 200);
  assert.deepEqual(t.quarantined, [], "4 s of CPU since its last frame");
  t.seconds(2 * STALL_CPU_MS_PER_CORE / 1000 - 4, null, 1000);
  assert.match(
    t.quarantined[0] ?? "",
    /^B: the page sent nothing while its browser used 6\.\d s of CPU/,
  );
});

Deno.test("OutputQuarantine: a page loaded again that never draws its first frame is stalled at the CPU bound", () => {
  const t = quarantine(2);
  t.drawing("isf-A-1");
  t.q.pageLoaded("ANGLE (SwiftShader Device (Subzero))");
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  t.seconds(2 * STALL_CPU_MS_PER_CORE / 1000 - 1, null, 1000);
  assert.deepEqual(t.quarantined, []);
  t.second(null, 1000);
  assert.match(t.quarantined[0] ?? "", /^B: .* 6\.0 s of CPU \(2 cores\)$/);
  assert.equal(t.restarts, 1);
});

Deno.test("OutputQuarantine: a page gone (its window closed, the editor's keeping the browser) is not judged until a page says hello again", () => {
  const t = quarantine(2);
  t.drawing("isf-A-1");
  const previewed = { id: "E", name: "Edited", type: "isf", builtIn: false, quarantine: null };
  t.q.statePushed(state("isf-A-1"), previewed as unknown as Preset);
  t.seconds(2, 30);
  // The output's window closed: its socket is closed, the browser works on (the editor's
  // page, the window opened again), on a busy machine and on a quiet one.
  t.page.isOpen = false;
  t.seconds(STALL_SILENT_CHECKS * 4, null, 200);
  t.seconds(STALL_CPU_MS_PER_CORE / 1000 * 4, null, 1000);
  assert.deepEqual(t.quarantined, [], "no page: nothing to judge");
  assert.equal(t.restarts, 0);
  assert.equal(t.q.isSuspecting, false);
  // The new page says hello and draws: judged again.
  t.page.isOpen = true;
  t.q.pageLoaded("ANGLE");
  t.q.statePushed(state("isf-A-1"), previewed as unknown as Preset);
  t.second(30);
  t.q.statePushed(state("isf-A-1", "isf-B-1"), previewed as unknown as Preset);
  t.seconds(STALL_SILENT_CHECKS, null, 200);
  assert.match(t.quarantined[0] ?? "", /^B: the page sent nothing in 5 looks in a row$/);
});

Deno.test("OutputQuarantine blames a generator Clip's shader as it blames an Effect's", () => {
  const t = quarantine();
  t.drawing("isf-A-1");
  const withGenerator = state("isf-A-1");
  withGenerator.layers.push(
    { effects: [], generator: { program: "isf-G-1", uniforms: {} } } as never,
  );
  t.q.statePushed(withGenerator);
  t.seconds(STALL_REPORTS, 0);
  assert.equal(t.quarantined[0], `G: the page drew no frame in ${STALL_REPORTS} reports in a row`);
});

Deno.test("OutputQuarantine: on a starved software-GL browser, frames drawn while a new program compiles do not clear it before the work of a stall (shader_hang beside stress-ng, load 25)", () => {
  const t = quarantine(2);
  t.q.browserStarted();
  t.q.pageLoaded("ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)");
  t.q.statePushed(state("isf-A-1"));
  t.seconds(KNOWN_DRAWN_REPORTS * 2, 30, 2000); // a quiet machine: A is known drawn
  t.machine.load = 25;
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  // B compiles in the background, the page drawing on as if without it, its browser getting
  // 150 ms of CPU a second: 30 reports with frames are 4.5 s of CPU, short of a stall's 6 s.
  t.seconds(KNOWN_DRAWN_REPORTS * 3, 1, 150);
  assert.equal(t.q.isSuspecting, true, "B is not known drawn");
  // B's program runs: its endless loop draws nothing while the browser works on.
  t.seconds(STALL_CPU_MS_PER_CORE * 2 / 150 - 1, 0, 150);
  assert.deepEqual(t.quarantined, [], "not before the CPU bound");
  t.seconds(2, 0, 150);
  assert.match(
    t.quarantined[0] ?? "",
    /^B: the page drew no frame while its browser used 6\.\d s of CPU/,
  );
});

Deno.test("OutputQuarantine: on software GL a change is known drawn once its frames span the work of a stall", () => {
  const t = quarantine(2);
  t.q.browserStarted();
  t.q.pageLoaded("ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)");
  t.q.statePushed(state("isf-A-1"));
  t.seconds(KNOWN_DRAWN_REPORTS * 2, 30, 2000);
  t.q.statePushed(state("isf-A-1", "isf-B-1"));
  t.seconds(KNOWN_DRAWN_CPU_MS_PER_CORE * 2 / 150 + KNOWN_DRAWN_REPORTS, 1, 150);
  assert.equal(t.q.isSuspecting, false, "B drew on past the work of a stall");
  t.seconds(60, 0, 150);
  assert.deepEqual(t.quarantined, [], "a later stall blames no preset");
});
