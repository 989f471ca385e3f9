import assert from "node:assert/strict";
import {
  editFindings,
  type EditRead,
  outputFindings,
  recordingFindings,
  verdictFindings,
} from "../../../tools/reliability/_load_figures.ts";

const output = (framesPerSecond: number, extra: Record<string, unknown> = {}) => ({
  framesDrawn: 100,
  framesPerSecond,
  renderScale: 0.5,
  browserStarts: 1,
  pageLoads: 1,
  ...extra,
});

Deno.test("outputFindings() names each figure /health and appState do not carry, never a pass", () => {
  const { shortfalls } = outputFindings([{ status: "ok", ready: true }], [undefined]);
  assert.deepEqual(shortfalls, [
    "GET /health has no `playerRestarts`: player restarts not read from it",
    "GET /health has no `output`: frames drawn a second, render scale and browser restarts not measured",
    "appState has no `output` ({renderScale, reason})",
  ]);
  assert.deepEqual(outputFindings([], []).shortfalls, ["no GET /health answered under load"]);
  assert.deepEqual(
    outputFindings([{ playerRestarts: 0, output: null }], [{ renderScale: 1, reason: null }])
      .shortfalls,
    ["GET /health `output` was null throughout: no output ran"],
  );
});

Deno.test("outputFindings() passes 5 frames a second on average at the scale it settled at, with no restart", () => {
  const ramp = [1, 1].map((fps) => ({
    playerRestarts: 0,
    output: output(fps, { renderScale: 1 }),
  }));
  const settled = [6, 4, 5, 6, 4].map((fps) => ({ playerRestarts: 0, output: output(fps) }));
  const appOutput = [{ renderScale: 0.5, reason: "the machine cannot keep up" }];
  const { notes, shortfalls } = outputFindings([...ramp, ...settled], appOutput);
  assert.deepEqual(shortfalls, []);
  assert.ok(
    notes.includes("frames drawn a second over the load: mean 3.9, min 1 over 7 s (4 s under 5)"),
  );
  assert.ok(notes.includes("frames drawn a second at scale 0.5 (the last 5 s): mean 5, min 4"));
  assert.ok(notes.includes("render scale: min 0.5, last 0.5"));
  assert.ok(notes.includes("browser restarts (/health browserStarts - 1): 0"));
  assert.ok(notes.includes("appState.output seen: 0.5 (the machine cannot keep up)"));
});

Deno.test("outputFindings() misses under 5 frames a second at the settled scale, a browser restart, a player restart, a dark second", () => {
  const health = [
    { playerRestarts: 0, output: output(9, { renderScale: 1 }) },
    { playerRestarts: 1, output: null },
    ...[2, 3, 2, 3, 2].map((fps) => ({
      playerRestarts: 1,
      output: output(fps, { browserStarts: 2 }),
    })),
  ];
  assert.deepEqual(outputFindings(health, [{ renderScale: 1, reason: null }]).shortfalls, [
    "GET /health counts 1 player restart(s)",
    "GET /health `output` null in 1 of 7 s",
    "the output drew 2.4 frames a second at scale 0.5 under load (target >= 5)",
    "1 browser restart(s)",
  ]);
});

Deno.test("outputFindings() gives no frames figure for a scale held under 5 s: a shortfall, never a pass", () => {
  const health = [
    ...[9, 9, 9].map((fps) => ({ playerRestarts: 0, output: output(fps, { renderScale: 1 }) })),
    ...[9, 9].map((fps) => ({ playerRestarts: 0, output: output(fps) })),
  ];
  assert.deepEqual(outputFindings(health, [{ renderScale: 0.5, reason: "slow" }]).shortfalls, [
    "the output held its last scale (0.5) for 2 s only: no figure at the lowered scale (at least 5 s)",
  ]);
});

const allFigures = {
  state: "idle",
  file: "recordings/r.webm",
  bytes: 1000,
  seconds: 30,
  videoFrames: 90,
  framesDrawn: 100,
  framesMissed: 3,
  noPictureSince: null,
  error: null,
};

Deno.test("recordingFindings() holds the file to 80% of the frames the page drew while recording", () => {
  const ok = recordingFindings({
    recording: allFigures,
    probed: { videoFrames: 80 },
    drawnByHealth: null,
  });
  assert.deepEqual(ok.shortfalls, []);
  assert.ok(
    ok.notes.includes(
      "ffprobe: 80 video frames of 100 drawn while recording (appState.recording), 80%",
    ),
  );
  const few = recordingFindings({
    recording: allFigures,
    probed: { videoFrames: 79 },
    drawnByHealth: null,
  });
  assert.deepEqual(few.shortfalls, ["the recording holds 79% of the frames drawn (target >= 80%)"]);
});

Deno.test("recordingFindings() names missing figures, an unreadable file, a recording not stopped", () => {
  const bare = recordingFindings({
    recording: { state: "recording", file: "recordings/r.webm", startedAt: null },
    probed: { error: "r.webm: EBML header parsing failed" },
    drawnByHealth: null,
  });
  assert.deepEqual(bare.shortfalls, [
    "appState.recording has no `bytes`, `seconds`, `videoFrames`, `framesDrawn`, `framesMissed`, `noPictureSince`, `error`",
    "the recording still recording after the stop",
    "ffprobe cannot read the recording: r.webm: EBML header parsing failed",
  ]);
  const noDrawn = recordingFindings({
    recording: { state: "idle", file: "recordings/r.webm" },
    probed: { videoFrames: 12 },
    drawnByHealth: null,
  });
  assert.ok(noDrawn.shortfalls.includes(
    "frames the page drew while recording: not reported (no figure to compare)",
  ));
  const byHealth = recordingFindings({
    recording: { ...allFigures, framesDrawn: undefined },
    probed: { videoFrames: 12 },
    drawnByHealth: 40,
  });
  assert.ok(
    byHealth.shortfalls.includes("the recording holds 30% of the frames drawn (target >= 80%)"),
  );
});

Deno.test("verdictFindings() counts the verdicts that differ and the shaders not checked under load", () => {
  const quiet = new Map([["a.fs", "valid"], ["b.fs", "invalid: x"], ["c.fs", "valid"]]);
  assert.deepEqual(verdictFindings(quiet, new Map(quiet)).shortfalls, []);
  const loaded = new Map([["a.fs", "invalid: checking the code took more than 3 s"], [
    "b.fs",
    "invalid: x",
  ]]);
  const { notes, shortfalls } = verdictFindings(quiet, loaded);
  assert.deepEqual(shortfalls, [
    "1 verdict(s) differ from the quiet run: a.fs: quiet valid, under load invalid: checking the code took more than 3 s",
    "1 shader(s) not checked under load: c.fs...",
  ]);
  assert.deepEqual(notes, ["verdicts: 3 shaders checked quiet (2 valid), 2 under load, 1 differ"]);
  const slowQuiet = new Map([[
    "d.fs",
    "invalid: code: line 1, column 1: checking the code took more than 3 s",
  ]]);
  assert.deepEqual(
    verdictFindings(slowQuiet, slowQuiet).notes[1],
    "1 quiet verdict(s) refused for time, so the quiet run was not quiet: d.fs",
  );
});

Deno.test("editFindings() misses an edit answered with an error and applied", () => {
  const read: EditRead = {
    sent: 3,
    acked: 1,
    refused: new Map([["load edit 1", "500 SERVER_ERROR"]]),
    unsettled: new Map(),
    retryAnswers: new Map([["504 TIMEOUT", 2]]),
    audit: { missing: [], repeated: [], duplicates: 0, refusedApplied: [], unsettledApplied: [] },
  };
  assert.deepEqual(editFindings(read).shortfalls, []);
  assert.match(editFindings(read).notes[0]!, /answers retried: 2x 504 TIMEOUT$/);
  const applied = editFindings({
    ...read,
    audit: { ...read.audit, refusedApplied: ["load edit 1"] },
  });
  assert.deepEqual(applied.shortfalls, [
    '1 edit(s) answered with an error were applied: "load edit 1" (500 SERVER_ERROR)',
  ]);
});

Deno.test("outputFindings() in the short run notes the frames a second, and still misses a restart", () => {
  const health = [
    ...[2, 2, 2, 2, 2].map((fps) => ({ playerRestarts: 0, output: output(fps) })),
    { playerRestarts: 0, output: output(2, { browserStarts: 2 }) },
  ];
  const { notes, shortfalls } = outputFindings(health, [{ renderScale: 0.5, reason: "slow" }], {
    holdsFramesTarget: false,
  });
  assert.deepEqual(shortfalls, ["1 browser restart(s)"]);
  assert.ok(
    notes.includes(
      "the output drew 2 frames a second at scale 0.5 under load (target >= 5) (no target in the short run: its 30 s of load are a third ramp)",
    ),
    notes.join("\n"),
  );
});
