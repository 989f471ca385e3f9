/**
 * A player in this process with a real output: headless Chromium (software
 * GL) showing a Project of test media made here (solid stills as PNG, a video
 * whose brightness is its time, a tone), and readers of its pixels and sound.
 */
import { Project } from "../../protocol/model.ts";
import { encodePng } from "../../lib/png.ts";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import type { NormalizedAction } from "../../protocol/actions.ts";
import { PlayerApp } from "../../player/app.ts";
import { type Clock, MonotonicClock, VirtualClock } from "../../player/clock.ts";
import type { Output } from "../../player/output/mod.ts";
import { decodePng, pixel, type Pixels } from "./images.ts";
import { CHROMIUM } from "./browser.ts";
import { untilProgress } from "./until.ts";
import { testSettings } from "./service.ts";
import type { Settings } from "../../server/config.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";
import { createLogger } from "../../server/log.ts";
import { startService } from "../../server/service.ts";
import { InstanceLock } from "../../server/startup.ts";
import { VERSION } from "../../server/version.ts";
import type { PlayerLauncher } from "../../server/player_client/mod.ts";
import { memoryTransportPair } from "../../protocol/transport.ts";
import { type RunningPlayer, startPlayer } from "../../player/mod.ts";

/** Width and height of the test display: small, so software GL keeps up. */
export const W = 160, H = 90;
/** Seconds of the ramp video: its brightness is `255 * t / RAMP_SECONDS`. */
export const RAMP_SECONDS = 4;

function solidPng(rgb: [number, number, number]): Uint8Array {
  const rgba = new Uint8Array(W * H * 4);
  for (let i = 0; i < W * H; i++) rgba.set([...rgb, 255], i * 4);
  return encodePng(W, H, rgba);
}

async function ffmpeg(args: string[]): Promise<void> {
  const out = await new Deno.Command("ffmpeg", {
    args: ["-hide_banner", "-loglevel", "error", "-y", ...args],
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

const still = (id: string, name: string) => ({
  id,
  kind: "image",
  name,
  path: `media/${name}`,
  mimeType: "image/png",
  size: 1,
  width: W,
  height: H,
  duration: null,
});

/** The test Project: stills red, white, black, green; the ramp video; a 440 Hz tone Song. */
export function outputProject(): Project {
  const clip = (id: string, fileId: string | null, extra: Record<string, unknown> = {}) => ({
    id,
    name: id,
    fileId,
    duration: 10,
    ...extra,
  });
  return Project.parse({
    id: "out",
    name: "Output test",
    display: { width: W, height: H, fps: 30, backgroundColor: "#000000" },
    files: [
      still("f-red", "red.png"),
      still("f-white", "white.png"),
      still("f-black", "black.png"),
      still("f-green", "green.png"),
      still("f-quad", "quad.png"),
      {
        id: "f-ramp",
        kind: "video",
        name: "ramp.webm",
        path: "media/ramp.webm",
        mimeType: "video/webm",
        size: 1,
        width: W,
        height: H,
        duration: RAMP_SECONDS,
      },
      {
        id: "f-tone",
        kind: "audio",
        name: "tone.wav",
        path: "media/tone.wav",
        mimeType: "audio/wav",
        size: 1,
        width: null,
        height: null,
        duration: 30,
      },
      {
        id: "f-broken",
        kind: "video",
        name: "broken.webm",
        path: "media/broken.webm",
        mimeType: "video/webm",
        size: 1,
        width: W,
        height: H,
        duration: 5,
      },
    ],
    clips: [
      clip("black", "f-black"),
      clip("red", "f-red"),
      clip("white", "f-white", { options: { opacity: 0.5 } }),
      clip("quad-plain", "f-quad"),
      clip("quad", "f-quad", { options: { effects: ["kal"] } }),
      clip("ramp", "f-ramp", { duration: RAMP_SECONDS }),
      clip("ramp-back", "f-ramp", { duration: RAMP_SECONDS, direction: "backward" }),
      clip("broken", "f-broken", { duration: 5 }),
      clip("green", "f-green", { loop: true }),
      clip("cam", null, { name: "camera:default" }),
      clip("tone", "f-tone", { duration: 30 }),
    ],
    songs: [{ id: "song", title: "Tone", audioFileId: "f-tone", clips: ["red", "white"] }],
    effects: [{
      id: "kal",
      name: "Kaleidoscope",
      type: "kaleidoscope",
      presetId: "fx-kaleidoscope",
      params: { segments: 2, mirror: false },
    }],
    visualizers: [{
      id: "bars",
      name: "Bars",
      engine: "bars",
      presetId: "viz-spectrum",
      params: { bands: 64 },
    }],
    backgroundClips: ["green"],
    controls: [{
      id: "K",
      targets: [{ target: "clip:quad/kal.segments", min: 2, max: 12 }],
    }],
  });
}

/** Writes the Project and its media into a fresh data dir. */
export async function outputDataDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-output-test-" });
  const media = `${dir}/projects/out/media`;
  await Deno.mkdir(media, { recursive: true });
  await Deno.writeFile(`${media}/red.png`, solidPng([255, 0, 0]));
  await Deno.writeFile(`${media}/white.png`, solidPng([255, 255, 255]));
  await Deno.writeFile(`${media}/black.png`, solidPng([0, 0, 0]));
  await Deno.writeFile(`${media}/green.png`, solidPng([0, 255, 0]));
  // Left half red, right half blue: a kaleidoscope mirrors one into the other.
  const quad = new Uint8Array(W * H * 4);
  for (let i = 0; i < W * H; i++) {
    quad.set(i % W < W / 2 ? [255, 0, 0, 255] : [0, 0, 255, 255], i * 4);
  }
  await Deno.writeFile(`${media}/quad.png`, encodePng(W, H, quad));
  await Deno.writeTextFile(`${media}/broken.webm`, "not a video at all");
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    `color=c=black:s=${W}x${H}:r=30:d=${RAMP_SECONDS},format=gray,geq=lum='255*T/${RAMP_SECONDS}'`,
    "-c:v",
    "libvpx",
    "-b:v",
    "1M",
    "-g",
    "1",
    "-pix_fmt",
    "yuv420p",
    `${media}/ramp.webm`,
  ]);
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:sample_rate=48000:duration=30",
    "-c:a",
    "pcm_s16le",
    `${media}/tone.wav`,
  ]);
  await writeJsonAtomic(`${dir}/projects/out/project.json`, outputProject());
  return dir;
}

/** A player with a headless output, and what the tests do with it. */
export interface OutputPlayer {
  app: PlayerApp;
  output: Output;
  clock: Clock;
  dataDir: string;
  logs: string[];
  run(name: string, params?: Record<string, string | number | boolean>): Promise<unknown>;
  /** Moves the virtual clock (virtual players only). */
  advance(ms: number): void;
  /** The picture the output shows now. */
  frame(): Promise<Pixels>;
  /** The RGB at the centre of the picture. */
  centre(): Promise<number[]>;
  close(): Promise<void>;
}

/**
 * Resolves once `check` holds; fails only when the output showed no progress (no page
 * message, no page file asked for, no browser start: `Output.lastProgressAt`) for 60 s,
 * naming `what`. A slow page on a busy machine is waited for, not timed out.
 */
export function untilOutput(
  output: Output,
  what: string,
  check: () => Promise<boolean> | boolean,
): Promise<void> {
  return untilProgress(what, check, { progress: () => output.lastProgressAt });
}

/**
 * The frame budget of the tests' outputs: so large that no second is slow, so the render
 * scale stays 1 whatever the load (the tests compare pixels; `degrade_test.ts` gives a tiny one).
 */
export const HOLD_SCALE_BUDGET_MS = 1e9;

/** Opens a player on the test Project with an output, headless unless `mode` says. */
export async function openOutputPlayer(
  options: {
    realClock?: boolean;
    /** The player's clock (default: a monotonic one with `realClock`, else a virtual one). */
    clock?: Clock;
    mode?: "headless" | "window" | "fullscreen";
    /** The time a frame may take before the page draws smaller (tiny: it always does); absent: held at 1. */
    frameBudgetMs?: number;
    /** The `outputDisplay` setting (a display's name or index); absent: the primary. */
    display?: string;
  } = {},
): Promise<OutputPlayer> {
  const dataDir = await outputDataDir();
  const clock = options.clock ?? (options.realClock ? new MonotonicClock() : new VirtualClock());
  const logs: string[] = [];
  const app = await PlayerApp.open({
    dataDir,
    clock,
    positionIntervalMs: 0,
    output: {
      mode: options.mode ?? "headless",
      browser: CHROMIUM,
      frameBudgetMs: options.frameBudgetMs ?? HOLD_SCALE_BUDGET_MS,
      ...(options.display ? { display: options.display } : {}),
    },
    log: (level, message) => logs.push(`${level}: ${message}`),
  });
  const output = app.output;
  if (!output) throw new Error(`No output: ${logs.join("; ")}`);
  const player: OutputPlayer = {
    app,
    output,
    clock,
    dataDir,
    logs,
    run(name, params = {}) {
      const action: NormalizedAction = { name, params, projectId: null };
      return app.runAction(action);
    },
    advance(ms) {
      (clock as VirtualClock).advance(ms);
      app.liveChanged();
    },
    async frame() {
      return decodePng(await output.frame());
    },
    async centre() {
      const p = await player.frame();
      return pixel(p, Math.floor(p.width / 2), Math.floor(p.height / 2)).slice(0, 3);
    },
    async close() {
      await app.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
  return player;
}

/** Whether `rgb` is within `tolerance` of `want` in every channel. */
export function near(rgb: number[], want: number[], tolerance = 12): boolean {
  return rgb.every((v, i) => Math.abs(v - want[i]!) <= tolerance);
}

/** A service whose player runs in this process with a headless output. */
export interface OutputService {
  output: Output;
  /** The service's HTTP address. */
  base: string;
  /** The service's WebSocket port. */
  wsPort: number;
  /** Moves the player's virtual clock through the service. */
  advance(ms: number): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The service on `dataDir` in this process, its player in this process too (so its
 * output's pixels and reports can be read) showing a headless output on `clock`.
 */
export async function openOutputService(
  dataDir: string,
  options: {
    clock: Clock;
    log?: (level: string, message: string) => void;
    /** Settings of the service beside these (`midiFeedback`, say). */
    settings?: Partial<Settings>;
  },
): Promise<OutputService> {
  const players: RunningPlayer[] = [];
  const launcher: PlayerLauncher = {
    async launch() {
      const [serverSide, playerSide] = memoryTransportPair();
      const running = await startPlayer({
        dataDir,
        transport: playerSide,
        clock: options.clock,
        // A virtual clock moves only when told: no position updates of its own.
        ...(options.clock instanceof VirtualClock ? { positionIntervalMs: 0 } : {}),
        output: { mode: "headless", browser: CHROMIUM, frameBudgetMs: HOLD_SCALE_BUDGET_MS },
        ...(options.log ? { log: options.log } : {}),
      });
      players.push(running);
      return {
        transport: serverSide,
        exited: running.done,
        kill: () => void playerSide.close(),
        pid: null,
      };
    },
  };
  // The output here is the in-process player's own (above), not the service's setting.
  const settings = testSettings(dataDir, {
    oscQueryPort: null,
    virtualClock: options.clock instanceof VirtualClock,
    positionIntervalMs: SETTING_DEFAULTS.positionIntervalMs,
    output: SETTING_DEFAULTS.output,
    ...options.settings,
  });
  const lock = await InstanceLock.acquire(dataDir, VERSION);
  const service = await startService(settings, createLogger("error"), { lock, launcher });
  // A bound for a player in this process that opens a Project: generous for a busy machine.
  if (!(await service.supervisor.waitReady(120_000))) throw new Error("The player did not start");
  return {
    output: players[0]!.app.output!,
    base: `http://127.0.0.1:${service.ports.http}`,
    wsPort: service.ports.ws,
    advance: (ms) => service.core.advanceClock(ms),
    stop: () => service.shutdown(),
  };
}
