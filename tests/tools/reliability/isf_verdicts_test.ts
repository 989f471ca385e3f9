import assert from "node:assert/strict";
import {
  CORPUS_DIR,
  loadCorpus,
  shadersFor,
  SHORT_RUN_SHADERS,
} from "../../../tools/reliability/_isf_verdicts.ts";
import { Rng } from "../../../tools/reliability/_prng.ts";

Deno.test("loadCorpus() reads the 50 vendored ISF files with their license, visualizers by their audio input", async () => {
  const corpus = await loadCorpus();
  assert.equal(corpus.length, 50);
  assert.deepEqual(
    corpus.filter((s) => s.kind === "visualizer").map((s) => s.name),
    [
      "Audio Waveform Shape.fs",
      "FFT Color Lines.fs",
      "FFT Spectrogram.fs",
      "Radial Spectrogram.fs",
      "Waveform Displace.fs",
    ],
  );
  assert.match(await Deno.readTextFile(new URL("LICENSE", CORPUS_DIR)), /^MIT License/);
});

Deno.test("shadersFor() checks all in a full run, and in a short one the same few for the same seed", async () => {
  const corpus = await loadCorpus();
  assert.equal(shadersFor("full", new Rng(1), corpus).length, 50);
  const names = (seed: number) => shadersFor("short", new Rng(seed), corpus).map((s) => s.name);
  assert.equal(names(1).length, SHORT_RUN_SHADERS);
  assert.deepEqual(names(1), names(1));
  assert.notDeepEqual(names(1), names(2));
  assert.deepEqual(names(1), [...names(1)].sort((a, b) => a.localeCompare(b)));
});
