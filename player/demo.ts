/**
 * The demo project created on first start with an empty data dir: three
 * Songs with generated PNG images and WAV tracks, a Gate Clip, a background
 * Clip, timelines, lyrics, Effects, a Visualizer and two mapped Controls.
 * @module
 */
import { CONTROL_IDS } from "../protocol/action_rules.ts";
import { type Project } from "../protocol/model.ts";
import { Project as ProjectSchema } from "../protocol/model.ts";
import { writeFileAtomic } from "../lib/atomic_write.ts";
import { encodePng, encodeWav } from "./media/encode.ts";
import { memorySource, probeMedia } from "./media/probe.ts";

const WIDTH = 320, HEIGHT = 180, SAMPLE_RATE = 22050;

type Painter = (x: number, y: number) => [number, number, number];

const PAINTERS: Record<string, Painter> = {
  aurora: (x, y) => [40 + (y * 80) / HEIGHT, 120 + 100 * Math.sin(x / 40), 160 + (x * 90) / WIDTH],
  rings: (x, y) => {
    const d = Math.hypot(x - WIDTH / 2, y - HEIGHT / 2);
    return Math.floor(d / 12) % 2 ? [250, 170, 30] : [30, 20, 60];
  },
  checker: (
    x,
    y,
  ) => ((Math.floor(x / 20) + Math.floor(y / 20)) % 2 ? [240, 240, 240] : [20, 20, 20]),
  stripes: (x) => [x % 40 < 20 ? 220 : 30, 40, x % 40 < 20 ? 60 : 200],
  strobe: () => [255, 255, 255],
  sunset: (_x, y) => [255, 120 + (y * 100) / HEIGHT, 60 + (y * 40) / HEIGHT],
  waves: (x, y) => [20, 90 + 80 * Math.sin((x + y * 2) / 25), 200],
  grid: (x, y) => (x % 32 === 0 || y % 32 === 0 ? [0, 255, 160] : [5, 10, 20]),
  flare: (x, y) => {
    const d = Math.hypot(x - WIDTH * 0.7, y - HEIGHT * 0.3);
    const v = Math.max(0, 255 - d * 2);
    return [v, v * 0.8, v * 0.4];
  },
  starfield: (x, y) => ((x * 7919 + y * 104729) % 97 === 0 ? [255, 255, 255] : [0, 0, 12]),
};

function paint(painter: Painter): Uint8Array {
  const px = new Uint8Array(WIDTH * HEIGHT * 4);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const [r, g, b] = painter(x, y);
      const i = (y * WIDTH + x) * 4;
      px[i] = r;
      px[i + 1] = g;
      px[i + 2] = b;
      px[i + 3] = 255;
    }
  }
  return encodePng(WIDTH, HEIGHT, px);
}

/** The demo's chords, as ratios of a Song's root: one every `CHORD_SECONDS`, in turn. */
const CHORDS = [[1, 1.25, 1.5], [0.89, 1.12, 1.33], [0.75, 0.94, 1.12], [0.84, 1.06, 1.26]];
const CHORD_SECONDS = 2;

/**
 * A sine of `omega` radians a second from `t0` seconds on, a sample at a time: a phasor turned by
 * one sample's angle each step (two products and sums, where `Math.sin` of each sample was the
 * first start's largest cost). Started afresh for each chord, it stays within 1e-12 of
 * `Math.sin(omega * t)`.
 */
class Tone {
  #sin: number;
  #cos: number;
  readonly #stepSin: number;
  readonly #stepCos: number;

  constructor(omega: number, t0: number) {
    this.#sin = Math.sin(omega * t0);
    this.#cos = Math.cos(omega * t0);
    this.#stepSin = Math.sin(omega / SAMPLE_RATE);
    this.#stepCos = Math.cos(omega / SAMPLE_RATE);
  }

  /** This sample's value; the phasor then turns to the next. */
  next(): number {
    const value = this.#sin;
    this.#sin = value * this.#stepCos + this.#cos * this.#stepSin;
    this.#cos = this.#cos * this.#stepCos - value * this.#stepSin;
    return value;
  }
}

/** A short synthesized chord progression, so waveforms have shape. */
function track(seconds: number, rootHz: number): Uint8Array {
  const samples = new Float32Array(seconds * SAMPLE_RATE);
  const perChord = CHORD_SECONDS * SAMPLE_RATE;
  for (let start = 0, n = 0; start < samples.length; start += perChord, n++) {
    const t0 = start / SAMPLE_RATE;
    const [a, b, c] = CHORDS[n % CHORDS.length]!.map((r) => new Tone(2 * Math.PI * rootHz * r, t0));
    // Its swell over the chord: 0.6 + 0.4 sin(pi (t % 2) / 2).
    const swell = new Tone(Math.PI / CHORD_SECONDS, 0);
    for (let i = start; i < Math.min(samples.length, start + perChord); i++) {
      const t = i / SAMPLE_RATE;
      const envelope = 0.6 + 0.4 * swell.next();
      const s = a!.next() + b!.next() + c!.next();
      const beat = (t % 0.5) < 0.05 ? Math.sin(2 * Math.PI * 60 * t) * (1 - (t % 0.5) / 0.05) : 0;
      samples[i] = 0.18 * envelope * s + 0.4 * beat;
    }
  }
  return encodeWav(samples, SAMPLE_RATE);
}

interface ClipSeed {
  id: string;
  name: string;
  art: string;
  duration: number;
  launchMode?: "Trigger" | "Toggle" | "Gate" | "OneShot";
  loop?: boolean;
  retrigger?: "restart" | "ignore" | "stop";
  velocitySensitivity?: number;
}

const SONGS = [
  {
    id: "song-opening",
    title: "Opening",
    pgmId: "1",
    seconds: 30,
    rootHz: 220,
    clips: [
      { id: "clip-aurora", name: "Aurora", art: "aurora", duration: 8, loop: true },
      { id: "clip-rings", name: "Rings", art: "rings", duration: 6, velocitySensitivity: 1 },
      {
        id: "clip-strobe",
        name: "Strobe",
        art: "strobe",
        duration: 2,
        launchMode: "Gate",
        loop: true,
      },
      { id: "clip-checker", name: "Checker", art: "checker", duration: 10 },
    ] as ClipSeed[],
    timeline: [
      { id: "cue-1", time: 0, action: "play", clipID: "clip-aurora" },
      { id: "cue-2", time: 8, action: "trigger", clipID: "clip-rings" },
      { id: "cue-3", time: 16, action: "stop", clipID: "clip-aurora" },
      { id: "cue-4", time: 20, action: "play", clipID: "clip-checker" },
    ],
    lyrics: [
      { time: 2, text: "Lights come up" },
      { time: 10, text: "Hold the line" },
      { time: 20, text: "Here we go" },
    ],
  },
  {
    id: "song-midnight",
    title: "Midnight Drive",
    pgmId: "2",
    seconds: 40,
    rootHz: 196,
    clips: [
      {
        id: "clip-stripes",
        name: "Stripes",
        art: "stripes",
        duration: 12,
        launchMode: "Toggle",
        loop: true,
      },
      { id: "clip-waves", name: "Waves", art: "waves", duration: 9, retrigger: "ignore" },
      { id: "clip-flare", name: "Flare", art: "flare", duration: 4, launchMode: "OneShot" },
    ] as ClipSeed[],
    timeline: [
      { id: "cue-5", time: 0, action: "play", clipID: "clip-waves" },
      { id: "cue-6", time: 12, action: "trigger", clipID: "clip-flare" },
    ],
    lyrics: [{ time: 4, text: "Engines hum" }, { time: 24, text: "Into the night" }],
  },
  {
    id: "song-finale",
    title: "Finale",
    pgmId: "3",
    seconds: 35,
    rootHz: 247,
    clips: [
      { id: "clip-sunset", name: "Sunset", art: "sunset", duration: 15, loop: true },
      { id: "clip-grid", name: "Grid", art: "grid", duration: 8, retrigger: "stop" },
      { id: "clip-flare-2", name: "Flare Reprise", art: "flare", duration: 5, launchMode: "Gate" },
    ] as ClipSeed[],
    timeline: [{ id: "cue-7", time: 0, action: "play", clipID: "clip-sunset" }],
    lyrics: [{ time: 3, text: "One more time" }, { time: 18, text: "Goodnight" }],
  },
];

/** A demo Clip of its seed, showing `fileId` (Soft Blur on Aurora). */
function clipOf(seed: ClipSeed, fileId: string): Project["clips"][number] {
  return {
    id: seed.id,
    name: seed.name,
    fileId,
    duration: seed.duration,
    launchMode: seed.launchMode ?? "Trigger",
    retrigger: seed.retrigger ?? "restart",
    direction: "forward",
    loop: seed.loop ?? false,
    velocitySensitivity: seed.velocitySensitivity ?? 0,
    options: {
      opacity: 1,
      volume: 1,
      speed: 1,
      filters: { brightness: 0, contrast: 1, saturation: 1, hue: 0, blur: 0 },
      effects: seed.id === "clip-aurora" ? ["effect-blur"] : [],
    },
  };
}

/** The demo's effects. */
const DEMO_EFFECTS = [
  {
    id: "effect-blur",
    name: "Soft Blur",
    type: "blur",
    presetId: "fx-blur",
    params: { radius: 4 },
  },
  {
    id: "effect-shift",
    name: "Hue Drift",
    type: "color-shift",
    presetId: "fx-color-shift",
    params: { hue: 30 },
  },
];

/** The demo's visualizer. */
const DEMO_VISUALIZERS = [
  {
    id: "viz-bars",
    name: "Bars",
    engine: "bars",
    presetId: "viz-spectrum",
    params: { bands: 32 },
  },
];

/** Writes the demo project's media under `dir` and returns its document. */
export async function createDemoProject(dir: string): Promise<Project> {
  const files: Project["files"] = [];
  const addFile = async (id: string, name: string, bytes: Uint8Array) => {
    const path = `media/${name}`;
    await writeFileAtomic(`${dir}/${path}`, bytes);
    const info = await probeMedia(memorySource(bytes));
    files.push({ id, name, path, size: bytes.length, ...info });
  };
  const clips: Project["clips"] = [];
  const addClip = async (seed: ClipSeed) => {
    const fileId = `file-${seed.art}`;
    if (!files.some((f) => f.id === fileId)) {
      await addFile(fileId, `${seed.art}.png`, paint(PAINTERS[seed.art]!));
    }
    clips.push(clipOf(seed, fileId));
  };
  const songs: Project["songs"] = [];
  for (const s of SONGS) {
    await addFile(`file-${s.id}-audio`, `${s.id}.wav`, track(s.seconds, s.rootHz));
    for (const seed of s.clips) await addClip(seed);
    songs.push({
      id: s.id,
      title: s.title,
      pgmId: s.pgmId,
      audioFileId: `file-${s.id}-audio`,
      audio: { volume: 1 },
      clips: s.clips.map((c) => c.id),
      backgroundClipID: null,
      timeline: s.timeline.map((c) => ({ ...c, action: c.action as "play" | "trigger" | "stop" })),
      lyrics: s.lyrics,
    });
  }
  await addClip({
    id: "clip-starfield",
    name: "Starfield",
    art: "starfield",
    duration: 30,
    loop: true,
  });
  return ProjectSchema.parse({
    id: "demo",
    name: "Demo Show",
    songs,
    clips,
    files,
    effects: DEMO_EFFECTS,
    visualizers: DEMO_VISUALIZERS,
    backgroundClips: ["clip-starfield"],
    controls: CONTROL_IDS.map((id) => ({
      id,
      name: id === "A" ? "Aurora opacity" : id === "B" ? "Sunset speed" : "",
      targets: id === "A"
        ? [{ target: "clip:clip-aurora/opacity", min: 0, max: 1, curve: "linear" }]
        : id === "B"
        ? [{ target: "clip:clip-sunset/speed", min: 0.5, max: 2, curve: "exponential" }]
        : [],
    })),
  });
}
