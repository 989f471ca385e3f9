/**
 * Probe `load`: the show held under sustained CPU contention (issue 39). A
 * service with a headless output plays the demo show; 50 real ISF shaders
 * (`isf_corpus/`; short: 12 picked by the seed) are checked with
 * `preset.validate` on the quiet machine.
 * Then `stress-ng` runs more busy processes than cores (2 x cores + 2) for
 * 3 minutes (short: 30 s), while the output records (`RECORD_TOGGLE` `now`,
 * stopped at the end), a client sends a keyed `song.add` every second
 * (retried on 503/504 with the same key), another `SET_CONTROL` at 50 a
 * second, the same shaders are checked again, and `GET /health` and
 * `appState.output` are read every second. The row: player restarts (the
 * harness), browser restarts, frames drawn a second (mean, min), frames in
 * the recording (ffprobe) against those the page drew, edits answered and
 * applied, verdicts that differ, local p99 of `/health`. A figure the service
 * does not report is a shortfall naming it, never a pass.
 * @module
 */
import { EditLoad, songsFromService, waitReady } from "./_edit_load.ts";
import { type ServiceRun, withService } from "./_harness.ts";
import { loadCorpus, shadersFor, verdicts } from "./_isf_verdicts.ts";
import { ActionLoad } from "./_action_load.ts";
import {
  editFindings,
  type Findings,
  outputFindings,
  p99Words,
  recordingFindings,
  verdictFindings,
} from "./_load_figures.ts";
import { fileNamed, postAction, recordingWhen, videoFramesOf } from "./_load_recording.ts";
import { browserPids, framesDrawnOf, healthNow, LoadSampler } from "./_load_sampler.ts";
import { loadAverage, Stress } from "./_stress.ts";
import { findPeer } from "../peers.ts";
import { NotRun, type Probe, type ProbeContext } from "./_types.ts";
import type { Tally } from "./_tally.ts";

/** Seconds of load at least. */
const LOAD_SECONDS = { short: 30, full: 180 };
/** Seconds the load may go on past that while the shaders are still being checked. */
const CHECKING_SECONDS = { short: 60, full: 240 };
const FIRST_FRAME_WITHIN_MS = 60_000;
/** Lines of the service log kept in the notes. */
const LOG_LINES = 6;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `load` probe. */
export const load: Probe = {
  name: "load",
  summary:
    "the show under stress-ng (2 x cores + 2 busy processes): headless output, recording, an edit a second, 50 actions a second, ISF verdicts (50, short 12) against the quiet run",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  for (const name of ["stress-ng", "chromium"] as const) {
    if (findPeer(name) === undefined) {
      throw new NotRun(`${name} not found (tools/peers.ts; Debian: apt-get install ${name})`);
    }
  }
  const corpus = await loadCorpus();
  const shaders = shadersFor(context.mode, context.rng, corpus);
  await withService(context.tally, { args: ["--output", "headless"] }, async (svc) => {
    if (!(await waitReady(svc))) throw new Error("The player was not ready within 30 s");
    await firstFrame(svc, context.tally);
    await postAction(svc.ports.http, "PLAY_IN");
    context.log(`load: ${shaders.length} of ${corpus.length} shaders checked, quiet`);
    context.tally.note(`quiet run at load average ${await loadAverage() ?? "-"} (other work)`);
    const quiet = await verdicts(svc.ports.http, shaders);
    context.tally.note(`quiet checks: ${p99Words(quiet.ms)}`);
    await underLoad(context, svc, async (isOver) => {
      context.log(`load: the same ${shaders.length} shaders checked under load`);
      const loaded = await verdicts(svc.ports.http, shaders, isOver);
      context.tally.note(`checks under load: ${p99Words(loaded.ms)}`);
      return verdictFindings(quiet.verdicts, loaded.verdicts);
    });
  });
}

/**
 * Waits for the output's first frame (`/health` `output.framesDrawn` > 0) and notes how long it
 * took; where `/health` has no `output`, for the browser process and 5 s more.
 */
async function firstFrame(svc: ServiceRun, tally: Tally): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < FIRST_FRAME_WITHIN_MS) {
    const health = await healthNow(svc.ports.http);
    if ((framesDrawnOf(health) ?? 0) > 0) {
      tally.note(`first frame ${((performance.now() - started) / 1000).toFixed(1)} s after ready`);
      return;
    }
    const player = health !== null && !("output" in health) ? await svc.playerPid() : null;
    if (player !== null && (await browserPids(player)).length > 0) {
      await sleep(5000);
      tally.note("first frame: not known (/health has no `output`); the browser ran, 5 s given");
      return;
    }
    await sleep(500);
  }
  tally.shortfall(`no frame drawn within ${FIRST_FRAME_WITHIN_MS / 1000} s of ready (quiet)`);
}

/**
 * Runs the load (stress-ng, recording, edits, actions, sampling) around `checks`, for the
 * mode's seconds at least, then stops it all and reports.
 */
async function underLoad(
  context: ProbeContext,
  svc: ServiceRun,
  checks: (isOver: () => boolean) => Promise<Findings>,
): Promise<void> {
  const { tally, mode } = context;
  const port = svc.ports.http;
  const limitMs = (LOAD_SECONDS[mode] + CHECKING_SECONDS[mode]) * 1000;
  const stress = Stress.start(limitMs / 1000 + 60);
  const started = performance.now();
  context.log(`load: stress-ng with ${stress.busy} busy processes for ${LOAD_SECONDS[mode]} s+`);
  const sampler = new LoadSampler(svc, tally);
  const actions = new ActionLoad(port, tally);
  const edits = new EditLoad(svc, tally, { clients: 1, prefix: "load edit", everyMs: 1000 });
  const findings: Findings[] = [];
  let drawn: number | null = null;
  let loadAvg: number | null = null;
  let startedFile: string | null = null;
  try {
    const record = await postAction(port, "RECORD_TOGGLE", ["now"]);
    tally.note(`RECORD_TOGGLE now answered ${record.status}: ${messageOf(record.body)}`);
    startedFile = fileNamed(record.body?.message);
    const drawnAtStart = framesDrawnOf(await healthNow(port));
    findings.push(await checks(() => performance.now() - started > limitMs));
    const left = LOAD_SECONDS[mode] * 1000 - (performance.now() - started);
    if (left > 0) await sleep(left);
    loadAvg = await loadAverage();
    await stopRecording(port, tally);
    const drawnAtStop = framesDrawnOf(await healthNow(port));
    if (drawnAtStart !== null && drawnAtStop !== null) drawn = drawnAtStop - drawnAtStart;
  } finally {
    await Promise.all([actions.stop(), edits.stop(), sampler.stop()]);
    await stress.stop();
  }
  const seconds = Math.round((performance.now() - started) / 1000);
  tally.note(
    `load: ${stress.busy} busy processes on ${navigator.hardwareConcurrency} cores for ${seconds} s, ` +
      `load average ${loadAvg ?? "-"} at the end`,
  );
  findings.push(await recordingRead(svc, startedFile, drawn));
  // The short run (CI) has 30 s of load, a third of it the scale stepping down: its frames a
  // second are a figure; the full run's 180 s hold the target.
  findings.push(
    outputFindings(sampler.health, sampler.appOutput, { holdsFramesTarget: mode === "full" }),
  );
  findings.push(browsersSeen(sampler.browsers));
  findings.push(await editsRead(svc, edits, tally));
  const failed = [...actions.failed].map(([k, n]) => `${n}x ${k}`).join(", ") || "none failed";
  tally.note(
    `actions: ${actions.sent} sent, ${actions.answeredOk} answered 200 (${failed}); ${
      p99Words(actions.ms)
    }`,
  );
  tally.note(`GET /health under load: ${p99Words(sampler.healthMs)}`);
  for (const line of logLines(svc)) tally.note(`log: ${line}`);
  for (const f of findings) {
    for (const n of f.notes) tally.note(n);
    for (const s of f.shortfalls) tally.shortfall(s);
  }
}

/** The recording once stopped: `appState.recording`, and the file as ffprobe reads it. */
async function recordingRead(
  svc: ServiceRun,
  startedFile: string | null,
  drawnByHealth: number | null,
): Promise<Findings> {
  const recording = await recordingWhen(svc.ports.http);
  // A player restarted meanwhile knows no recording: the file its start named is read instead.
  const file = typeof recording?.file === "string" ? recording.file : startedFile;
  const probed = file !== null
    ? await videoFramesOf(`${svc.dataDir}/${file}`)
    : { error: "neither appState.recording nor the start's answer names a file" };
  return recordingFindings({ recording, probed, drawnByHealth });
}

/** The edits' audit against the Songs found; the row's `acked`, `lost` and `dup`. */
async function editsRead(svc: ServiceRun, edits: EditLoad, tally: Tally): Promise<Findings> {
  const audit = edits.audit(await songsFromService(svc));
  tally.acked = edits.acked.size;
  tally.lost = audit.missing.length;
  tally.duplicates = audit.duplicates;
  return editFindings({
    sent: edits.sent,
    acked: edits.acked.size,
    refused: edits.refused,
    unsettled: edits.unsettled,
    retryAnswers: edits.retryAnswers,
    audit,
  });
}

/** The action's message, or the body as text. */
function messageOf(body: Record<string, unknown> | null): string {
  return typeof body?.message === "string" ? body.message : JSON.stringify(body).slice(0, 200);
}

/** Toggles the recording off if it still runs; one that ended on its own is a shortfall. */
async function stopRecording(port: number, tally: Tally): Promise<void> {
  const before = await recordingWhen(port, () => true);
  if (before?.state !== "recording") {
    const state = before === null ? "not readable (app state not answered in 30 s)" : before.state;
    tally.shortfall(`the recording was ${state} before its stop: it ended early`);
    return;
  }
  const stop = await postAction(port, "RECORD_TOGGLE");
  tally.note(`the stop answered ${stop.status}: ${messageOf(stop.body)}`);
}

/**
 * The service log's lines that say why the browser restarted (each of them, with its figures), and
 * its last lines about the player, its output and recordings, after a count of its `Player hung`
 * and `Player down` lines (of the last 32 KiB).
 */
function logLines(svc: ServiceRun): string[] {
  const lines = svc.service.stderrTail().split("\n");
  const count = (word: string) => lines.filter((line) => line.includes(word)).length;
  return [
    `${count("Player hung")} "Player hung", ${count("Player down")} "Player down" lines`,
    ...restartLines(lines).map((line) => `browser restart: ${line}`),
    ...lines.filter((line) => /player|browser|output|record|hung|restart|page/i.test(line))
      .slice(-LOG_LINES)
      .map((line) => line.length > 240 ? `${line.slice(0, 240)}...` : line),
  ];
}

/** The log lines that say why the output's browser started again, or a preset was quarantined. */
export function restartLines(lines: readonly string[]): string[] {
  return lines.filter((line) => RESTART_WORDS.test(line)).map((line) => line.trim());
}

const RESTART_WORDS = /starting the browser again|quarantined:|Output back \d+ ms|browser exited/;

/** The browser processes seen under the player: more than one is a restart, whatever /health says. */
function browsersSeen(pids: ReadonlySet<number>): Findings {
  const notes = [`browser processes seen under the player: ${pids.size}`];
  return pids.size > 1
    ? { notes, shortfalls: [`${pids.size - 1} browser restart(s) seen (a new browser pid)`] }
    : { notes, shortfalls: [] };
}
