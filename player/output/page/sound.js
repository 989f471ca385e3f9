// The output's sound: the Song's audio and each Clip's through the master level, a meter
// of what leaves it, the spectrum the visualizers read, and the recording of the output.
import { follow } from "./clock.js";

export const audio = new AudioContext();
/** Every sound goes through here: the output level after mute. */
export const master = audio.createGain();
/** The Song's audio, for the visualizers (spectrum, waveform). */
export const analyser = audio.createAnalyser();
const recordDestination = audio.createMediaStreamDestination();
const levelMeter = audio.createAnalyser();
master.connect(audio.destination);
master.connect(recordDestination);
master.connect(levelMeter);
analyser.fftSize = 512;
const songGain = audio.createGain();
songGain.connect(analyser);
songGain.connect(master);
let song = null;

/** Starts the sound where a browser held it until a gesture (the player allows autoplay). */
export function resumeAudio() {
  if (audio.state !== "running") audio.resume().catch(() => {});
}

/** The output level, at once. */
export function setLevel(level) {
  master.gain.setValueAtTime(level, audio.currentTime);
}

/** Plays the Song's audio (`wanted`, or null: none) on the clock. */
export function syncSong(wanted, base, clock, frameSeconds) {
  if (!wanted) {
    song?.el.pause();
    return;
  }
  if (!song || song.source !== wanted.source) {
    song?.el.pause();
    const el = new Audio(base + wanted.source);
    el.preload = "auto";
    audio.createMediaElementSource(el).connect(songGain);
    song = { el, source: wanted.source };
  }
  songGain.gain.value = wanted.volume;
  const item = { ...wanted, loop: false, duration: song.el.duration || Infinity };
  follow(song.el, item, clock, frameSeconds);
}

/** The RMS level (0-1) of what leaves the output over `ms` milliseconds. */
export async function measureLevel(ms) {
  resumeAudio();
  const buf = new Float32Array(levelMeter.fftSize);
  let sum = 0, n = 0;
  // The meter holds the last fftSize samples: those from before the request are skipped.
  const windowMs = (1000 * levelMeter.fftSize) / audio.sampleRate;
  await new Promise((resolve) => setTimeout(resolve, windowMs + 10));
  const end = performance.now() + ms;
  while (performance.now() < end) {
    levelMeter.getFloatTimeDomainData(buf);
    for (const v of buf) sum += v * v;
    n += buf.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Math.sqrt(sum / Math.max(1, n));
}

let recorder = null;
let chunks = Promise.resolve();

/**
 * Records the canvas and the master sound (WebM: VP8 and Opus) in half-second chunks,
 * each given to `onChunk` (an ArrayBuffer) in order. A recording still running is
 * stopped first: one at a time, so the player's file gets one stream.
 */
export function startRecording(canvas, fps, onChunk) {
  resumeAudio();
  if (recorder?.state === "recording") recorder.stop();
  const stream = canvas.captureStream(fps);
  for (const track of recordDestination.stream.getAudioTracks()) stream.addTrack(track);
  // This recorder's own, not the module's: a later one must not take its stop.
  const mine = new MediaRecorder(stream, { mimeType: "video/webm;codecs=vp8,opus" });
  const startedAt = performance.now();
  mine.ondataavailable = (event) => {
    chunks = chunks.then(() => event.data.arrayBuffer()).then(onChunk);
  };
  mine.onstop = () => {
    const durationMs = performance.now() - startedAt;
    chunks = chunks.then(() => mine.whenStopped?.({ durationMs, mimeType: mine.mimeType }));
  };
  mine.start(500);
  recorder = mine;
}

/** Stops the recording; resolves once its last chunk went out, with its duration. */
export function stopRecording() {
  const mine = recorder;
  if (!mine || mine.state === "inactive") {
    return Promise.resolve({ durationMs: 0, mimeType: "" });
  }
  return new Promise((resolve) => {
    mine.whenStopped = resolve;
    mine.stop();
  });
}
