/**
 * The pictures the application answers with: the cameras it found and a frame from one
 * (`camera.frame`), and the output's picture now (`output.frame`).
 * @module
 */
import { RpcErrorCode } from "../protocol/jsonrpc.ts";
import type { CameraFrameResult, OutputFrameAsk, OutputFrameResult } from "../protocol/methods.ts";
import type { Camera } from "../protocol/state.ts";
import { saveOutputFrame } from "./app_output.ts";
import { CameraFrames } from "./camera_frames.ts";
import { listCameras } from "./cameras.ts";
import type { Clock } from "./clock.ts";
import { Refusal } from "./errors.ts";
import type { Output } from "./output/mod.ts";

/** What the pictures need (`PlayerOptions`, and the output while it runs). */
export interface AppMediaOptions {
  dataDir: string;
  clock: Clock;
  /** The ffmpeg command that captures camera devices; null: none. */
  ffmpeg: string | null;
  output(): Output | null;
}

/** The cameras and the pictures taken from them and from the output. */
export class AppMedia {
  #options: AppMediaOptions;
  #cameras: Camera[] = [];
  #frames: CameraFrames;

  /** No cameras until `load`. */
  constructor(options: AppMediaOptions) {
    this.#options = options;
    this.#frames = new CameraFrames(options.dataDir, () => options.clock.now(), options.ffmpeg);
  }

  /** The cameras found at the last load. */
  get cameras(): Camera[] {
    return this.#cameras;
  }

  /** Looks for the cameras again. */
  async load(): Promise<void> {
    this.#cameras = await listCameras();
  }

  /**
   * A picture from a camera, by device id (`camera.frame`).
   * @throws {Refusal} NOT_FOUND for an unknown camera, UNAVAILABLE without ffmpeg, ACTION_REFUSED when capture fails
   */
  cameraFrame(cameraId: string): Promise<CameraFrameResult> {
    const camera = this.#cameras.find((c) => c.deviceId === cameraId);
    if (!camera) {
      return Promise.reject(
        new Refusal(`Camera "${cameraId}" does not exist`, RpcErrorCode.NOT_FOUND),
      );
    }
    return this.#frames.capture(camera);
  }

  /**
   * The output's picture now, as a file under `cache/output/` (`output.frame`): a PNG at the
   * display's size, or the size and format asked.
   * @throws {Refusal} UNAVAILABLE when no output runs
   */
  outputFrame(asked: OutputFrameAsk = {}): Promise<OutputFrameResult> {
    const { output, clock, dataDir } = this.#options;
    return saveOutputFrame(output(), clock, dataDir, asked);
  }
}
