/**
 * The core's requests that go to the player as they are: reload, show
 * import, file location, camera frames and the virtual clock. Each maps the
 * player's refusal to a `CueportError`.
 * @module
 */
import {
  type CameraFrameResult,
  type MediaLocateResult,
  type MediaProbeResult,
  Method,
  type MethodParams,
  type OutputFrameResult,
  type ShowImportResult,
} from "../../protocol/methods.ts";
import type { OutputDisplays } from "../../protocol/displays.ts";
import type { TimecodeState } from "../../protocol/timecode.ts";
import { RpcError, RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { CueportError } from "./errors.ts";
import type { PlayerLink } from "./player_link.ts";
import { fromPlayerError } from "./player_errors.ts";

/** Requests passed to the player (`Core.reload`, `Core.importShow`, ...). */
export class PlayerRequests {
  #link: PlayerLink;

  /** Requests go to the player of `link`. */
  constructor(link: PlayerLink) {
    this.#link = link;
  }

  /** Reloads projects and media from disk; clients get a `full` update. */
  async reload(): Promise<void> {
    this.#link.requireReady();
    await this.#link.player.request(Method.PROJECTS_RELOAD, undefined).catch(
      (e) => {
        throw fromPlayerError(e);
      },
    );
  }

  /**
   * Imports a show file on this machine through the player (`show.import`, docs/projects.md).
   * @throws {CueportError} NOT_READY, INVALID_SHOW_FILE (what is wrong, nothing kept), DISK_FULL
   */
  importShow(params: MethodParams<typeof Method.SHOW_IMPORT>): Promise<ShowImportResult> {
    this.#link.requireReady();
    return this.#link.player.request(Method.SHOW_IMPORT, params).catch((e) => {
      throw fromPlayerError(e);
    });
  }

  /**
   * Where a Project's file is on disk, from the player (`media.locate`).
   * @throws {CueportError} NOT_READY, NOT_FOUND, UNAVAILABLE (a player without it)
   */
  locateFile(projectId: string, fileId: string): Promise<MediaLocateResult> {
    return this.#link.player.request(Method.MEDIA_LOCATE, { projectId, fileId })
      .catch((e) => {
        throw fromPlayerError(e);
      });
  }

  /**
   * What the player measures of a file on this machine (`media.probe`, 1.18), as `file.import`
   * would: a rig group's import probes its file so before copying it to every rig. Null from a
   * player before 1.18 (nothing probed: the import goes on as it did then).
   * @throws {CueportError} NOT_READY, NOT_FOUND, UNSUPPORTED_MEDIA, CORRUPT_MEDIA
   */
  async probeMedia(path: string): Promise<MediaProbeResult | null> {
    this.#link.requireReady();
    try {
      return await this.#link.player.request(Method.MEDIA_PROBE, { path });
    } catch (error) {
      if (error instanceof RpcError && error.code === RpcErrorCode.METHOD_NOT_FOUND) return null;
      throw fromPlayerError(error);
    }
  }

  /**
   * The output's picture now, from the player (`output.frame`), in the size and
   * format asked when the player can (1.8), else a full-size PNG (`format` absent).
   * @throws {CueportError} NOT_READY, NO_OUTPUT (no output runs: the output setting)
   */
  outputFrame(params: MethodParams<typeof Method.OUTPUT_FRAME>): Promise<OutputFrameResult> {
    this.#link.requireReady();
    return this.#link.player.request(Method.OUTPUT_FRAME, params).catch((e) => {
      throw fromPlayerError(e, { outputFrame: true });
    });
  }

  /**
   * A picture a camera just took, from the player (`camera.frame`); captures
   * may take seconds.
   * @throws {CueportError} NOT_READY, NOT_FOUND, UNAVAILABLE (no ffmpeg), ACTION_FAILED (the capture failed)
   */
  cameraFrame(cameraId: string): Promise<CameraFrameResult> {
    return this.#link.player.request(Method.CAMERA_FRAME, { cameraId }).catch((e) => {
      throw fromPlayerError(e);
    });
  }

  /**
   * The machine's displays and the output's, from the player (`output.displays`, 1.7).
   * @throws {CueportError} NOT_READY, UNAVAILABLE (a player without it)
   */
  displays(): Promise<OutputDisplays> {
    return this.#link.player.request(Method.OUTPUT_DISPLAYS, {}).catch((e) => {
      throw fromPlayerError(e);
    });
  }

  /**
   * Hands the player one sample of incoming timecode (`timecode.sample`, 1.9); answers how
   * the active Song chases it.
   * @throws {CueportError} NOT_READY, NOT_FOUND (no Project open), UNAVAILABLE (a player without it)
   */
  timecode(sample: MethodParams<typeof Method.TIMECODE_SAMPLE>): Promise<TimecodeState> {
    this.#link.requireReady();
    return this.#link.player.request(Method.TIMECODE_SAMPLE, sample).catch((e) => {
      throw fromPlayerError(e);
    });
  }

  /**
   * Shifts the player's real-time clock to follow the rig group's show clock (`clock.shift`,
   * 1.15): the shift it follows now, null on a virtual clock.
   * @throws {CueportError} NOT_READY; an RpcError METHOD_NOT_FOUND from a player before it
   */
  async shiftClock(shiftMs: number): Promise<number | null> {
    this.#link.requireReady();
    return (await this.#link.player.request(Method.CLOCK_SHIFT, { shiftMs })).shiftMs;
  }

  /** Moves a virtual player clock (only when the service runs with one). */
  async advanceClock(ms: number): Promise<number> {
    this.#link.requireReady();
    if (!this.#link.player.info?.capabilities.virtualClock) {
      throw new CueportError("NOT_FOUND", "The player does not run on a virtual clock");
    }
    const result = await this.#link.player.request(Method.CLOCK_ADVANCE, { ms })
      .catch((e) => {
        throw fromPlayerError(e);
      });
    this.#link.model.setClock(result.now);
    return result.now;
  }
}
