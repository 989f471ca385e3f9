/**
 * The service's media: thumbnails of a Project's files, waveforms of its
 * audio and live camera thumbnails (`docs/media.md`). Pictures are made on
 * workers (`pool.ts`, `render/`), kept by a key of the file's content and the
 * parameters (`content_key.ts`, `picture_cache.ts`) and answered with that
 * key as a strong ETag. A cached picture is answered without crossing to the
 * player or the disk: its file is checked again at most once a second. Work
 * is bounded: pictures above `maxImagePixels` are refused from their header,
 * clients take turns on the workers, a picture nobody waits for any more is
 * not made, and a remote client may have only a few variants of one file
 * made at a time (`variant_limits.ts`).
 * @module
 */
import { createHash } from "node:crypto";
import {
  type CameraThumbnailInput,
  type Core,
  CueportError,
  type MediaAnswer,
  MediaImage,
  MediaNotModified,
  type MediaRequest,
  type MediaSource,
  type OutputFrameInput,
  type PresetImageInput,
  type ThumbnailInput,
  type WaveformInput,
} from "../core/mod.ts";
import type { MediaFile } from "../../protocol/model.ts";
import { CameraFeeds, type Frame } from "./camera_feeds.ts";
import { ContentKeys } from "./content_key.ts";
import { matches, OutputFrames, type OutputPicture } from "./output_frames.ts";
import { type Picture, PictureCache } from "./picture_cache.ts";
import { RenderPool } from "./pool.ts";
import type { RenderJob, SourceFile } from "./render/mod.ts";
import { VariantLimits } from "./variant_limits.ts";
import { presetImage } from "./preset_images.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

export { CameraFeeds } from "./camera_feeds.ts";
export { RenderPool } from "./pool.ts";
export { VariantLimits } from "./variant_limits.ts";

/**
 * Bumped when the pictures a job makes change (a better filter, another
 * overlay): every cached picture is then made again.
 */
const RENDER_VERSION = 1;

/** How long a file's check holds: a cached picture is served this long without one. */
const RECHECK_MS = 1_000;

/** Quality of camera thumbnails. */
const CAMERA_QUALITY = 80;

/** Options of the media service. */
export interface MediaServiceOptions {
  /** The data dir: pictures are kept in its `cache/media/`. */
  dataDir: string;
  /** ffmpeg's command, or null (the setting `off`). */
  ffmpeg: string | null;
  /** Pictures of more pixels get a card (the setting `maxImagePixels`, and its default). */
  maxImagePixels?: number;
  /** Bytes of pictures kept on disk (the setting `maxPictureCacheBytes`, and its default). */
  maxPictureCacheBytes?: number;
  /** How many variants of a file a remote client may have made (tests). */
  variants?: VariantLimits;
  /** The workers; default one pool of one worker. */
  pool?: RenderPool;
  /** Camera feeds' timing (tests). */
  cameras?: { refreshMs?: number; activeMs?: number };
  log?: (message: string) => void;
}

/** What a request's picture is, once its file is checked. */
interface Known {
  file: MediaFile;
  key: string;
  etag: string;
  checkedAt: number;
}

/** Makes and keeps the pictures the media operations answer. */
export class MediaService implements MediaSource {
  #core: Core;
  #o: MediaServiceOptions;
  #pool: RenderPool;
  #cache: PictureCache;
  #keys = new ContentKeys();
  #variants: VariantLimits;
  #maxPixels: number;
  /** The last check of each request's file, by request. */
  #known = new Map<string, Known>();
  #cameras: CameraFeeds;
  #outputs: OutputFrames;

  /** Builds the service; workers start with the first picture. */
  constructor(core: Core, options: MediaServiceOptions) {
    this.#core = core;
    this.#o = options;
    this.#pool = options.pool ?? new RenderPool();
    this.#cache = new PictureCache({
      dir: `${options.dataDir}/cache/media`,
      ...(options.maxPictureCacheBytes ? { diskBytes: options.maxPictureCacheBytes } : {}),
    });
    this.#variants = options.variants ?? new VariantLimits();
    this.#maxPixels = options.maxImagePixels ?? SETTING_DEFAULTS.maxImagePixels;
    this.#cameras = new CameraFeeds({
      capture: (cameraId) => this.#captureCamera(cameraId),
      ...options.cameras,
      ...(options.log ? { log: options.log } : {}),
    });
    this.#outputs = new OutputFrames({
      capture: (input, request) => this.#captureOutput(input, request),
      derive: (from, input, request) => this.#deriveOutput(from, input, request),
      variants: this.#variants,
    });
  }

  /** A preset's IMPORTED image, as stored (`preset_images.ts`). */
  presetImage(input: PresetImageInput): Promise<MediaAnswer> {
    return presetImage(this.#core, this.#o.dataDir, input);
  }

  /** The output's picture now, shared by the clients that poll it (`output_frames.ts`). */
  outputFrame(input: OutputFrameInput, request?: MediaRequest): Promise<MediaAnswer> {
    return this.#outputs.frame(input, request);
  }

  /** A thumbnail of a Project's file. */
  thumbnail(input: ThumbnailInput, request?: MediaRequest): MediaAnswer | Promise<MediaAnswer> {
    const params = `thumbnail|${input.size ?? "original"}|${input.overlay}|${input.format}|${
      input.format === "jpeg" ? input.quality : ""
    }|${this.#maxPixels}`;
    return this.#answer(input, request, params, (source) => ({
      type: "thumbnail",
      source,
      size: input.size ?? null,
      overlay: input.overlay,
      format: input.format,
      quality: input.quality,
      ffmpeg: this.#o.ffmpeg,
      maxPixels: this.#maxPixels,
    }));
  }

  /** A waveform of a Project's audio file. */
  waveform(input: WaveformInput, request?: MediaRequest): MediaAnswer | Promise<MediaAnswer> {
    try {
      const file = this.#file(input.projectId, input.fileId);
      if (file.kind !== "audio") {
        throw new CueportError(
          "INVALID_MESSAGE",
          `File "${input.fileId}" is ${file.kind === "image" ? "an image" : "a video"} ` +
            `(${file.name}): waveforms are drawn for audio files`,
          { field: "fileId" },
        );
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#answer(input, request, `waveform|${input.width}|${input.height}`, (source) => ({
      type: "waveform",
      source,
      width: input.width,
      height: input.height,
      ffmpeg: this.#o.ffmpeg,
    }), "waveform");
  }

  /** A camera's live thumbnail (`default`: the default camera). */
  async cameraThumbnail(input: CameraThumbnailInput): Promise<MediaAnswer> {
    const cameras = this.#core.queries.cameras();
    const camera = input.cameraId === "default"
      ? cameras.find((c) => c.isDefault)
      : cameras.find((c) => c.deviceId === input.cameraId);
    if (!camera) {
      throw new CueportError(
        "NOT_FOUND",
        `Camera "${input.cameraId}" does not exist; cameras: ${
          ["default", ...cameras.map((c) => c.deviceId)].join(", ")
        }`,
        { field: "cameraId" },
      );
    }
    const frame = await this.#cameras.frame(camera.deviceId);
    if (input.ifNoneMatch !== undefined && matches(input.ifNoneMatch, frame.etag)) {
      return new MediaNotModified(frame.etag);
    }
    return new MediaImage(frame.bytes, "image/jpeg", frame.etag, "camera");
  }

  /** Ends the workers and the camera feeds; resolves once no worker runs. */
  close(): Promise<void> {
    this.#cameras.close();
    return this.#pool.close();
  }

  /** The file of a Project, from the read model. */
  #file(projectId: string, fileId: string): MediaFile {
    const file = this.#core.queries.projectModel(projectId).files.find((f) => f.id === fileId);
    if (!file) {
      throw new CueportError(
        "NOT_FOUND",
        `File "${fileId}" is not in Project "${projectId}"`,
        { field: "fileId" },
      );
    }
    return file;
  }

  /**
   * The answer of a file's picture: at once (no promise) when the picture is
   * in memory and its file was checked within `RECHECK_MS`, the hot path of a
   * Stream Deck asking again and again; else after checking the file and, if
   * needed, making the picture.
   */
  #answer(
    input: { projectId: string; fileId: string; ifNoneMatch?: string | undefined },
    request: MediaRequest | undefined,
    params: string,
    jobOf: (source: SourceFile) => RenderJob,
    origin?: "waveform",
  ): MediaAnswer | Promise<MediaAnswer> {
    const file = this.#file(input.projectId, input.fileId);
    const id = `${input.projectId}/${input.fileId}|${params}`;
    const known = this.#known.get(id);
    if (known && known.file === file && performance.now() - known.checkedAt <= RECHECK_MS) {
      if (input.ifNoneMatch !== undefined && matches(input.ifNoneMatch, known.etag)) {
        return new MediaNotModified(known.etag);
      }
      const picture = this.#cache.peek(known.key);
      if (picture) {
        return new MediaImage(
          picture.bytes,
          picture.contentType,
          known.etag,
          origin ?? picture.origin,
        );
      }
    }
    return this.#answerChecked(input, request, file, id, params, jobOf, origin);
  }

  async #answerChecked(
    input: { projectId: string; fileId: string; ifNoneMatch?: string | undefined },
    request: MediaRequest | undefined,
    file: MediaFile,
    id: string,
    params: string,
    jobOf: (source: SourceFile) => RenderJob,
    origin?: "waveform",
  ): Promise<MediaAnswer> {
    let known = this.#known.get(id);
    let source: SourceFile | undefined;
    if (!known || known.file !== file || performance.now() - known.checkedAt > RECHECK_MS) {
      const stamp = await this.#core.locateFile(input.projectId, input.fileId);
      const content = await this.#keys.of(stamp);
      const key = createHash("sha256").update(`${RENDER_VERSION}|${content}|${params}`)
        .digest("hex");
      known = { file, key, etag: `"${key.slice(0, 32)}"`, checkedAt: performance.now() };
      this.#remember(id, known);
      source = {
        path: stamp.path,
        kind: file.kind,
        name: file.name,
        mimeType: file.mimeType,
        duration: file.duration,
        pixels: pixelsOf(file),
      };
    }
    if (input.ifNoneMatch !== undefined && matches(input.ifNoneMatch, known.etag)) {
      return new MediaNotModified(known.etag);
    }
    const { etag, key } = known;
    const cached = this.#cache.peek(key);
    if (cached) {
      return new MediaImage(cached.bytes, cached.contentType, etag, origin ?? cached.origin);
    }
    const client = request?.client ?? "";
    const release = request && !request.isLocal
      ? this.#variants.admit(client, `${input.projectId}/${input.fileId}`, params)
      : () => {};
    try {
      const picture = await this.#cache.get(key, async (signal) => {
        source ??= await this.#sourceOf(input.projectId, input.fileId, file);
        return await this.#render(jobOf(source), {
          client,
          signal,
          isLocal: request?.isLocal ?? true,
        });
      }, request?.signal);
      return new MediaImage(picture.bytes, picture.contentType, etag, origin ?? picture.origin);
    } finally {
      release();
    }
  }

  #remember(id: string, known: Known): void {
    if (this.#known.size >= 10_000 && !this.#known.has(id)) {
      this.#known.delete(this.#known.keys().next().value!);
    }
    this.#known.set(id, known);
  }

  async #sourceOf(projectId: string, fileId: string, file: MediaFile): Promise<SourceFile> {
    const stamp = await this.#core.locateFile(projectId, fileId);
    return {
      path: stamp.path,
      kind: file.kind,
      name: file.name,
      mimeType: file.mimeType,
      duration: file.duration,
      pixels: pixelsOf(file),
    };
  }

  async #render(
    job: RenderJob,
    request: { client?: string; signal?: AbortSignal; isLocal?: boolean } = {},
  ): Promise<Picture> {
    const rendered = await this.#pool.render(job, request);
    return {
      bytes: rendered.bytes as Uint8Array<ArrayBuffer>,
      contentType: rendered.contentType,
      origin: rendered.origin,
    };
  }

  #captureOutput(input: OutputFrameInput, request?: MediaRequest): Promise<OutputPicture> {
    const turn = { client: request?.client ?? "", isLocal: request?.isLocal ?? true };
    return captureOutput(this.#core, input, (job) => this.#render(job, turn), this.#maxPixels);
  }

  /** Another variant of a capture of the output, made on the render pool from its bytes. */
  async #deriveOutput(
    from: OutputPicture,
    input: OutputFrameInput,
    request?: MediaRequest,
  ): Promise<OutputPicture> {
    const turn = { client: request?.client ?? "", isLocal: request?.isLocal ?? true };
    const picture = await this.#render({
      type: "output-frame",
      source: {
        path: "",
        kind: "image",
        name: "output",
        mimeType: from.contentType,
        duration: null,
      },
      bytes: from.bytes,
      size: input.size ?? null,
      format: input.format,
      quality: input.quality,
      maxPixels: this.#maxPixels,
    }, turn);
    return { bytes: picture.bytes, contentType: picture.contentType };
  }

  async #captureCamera(cameraId: string): Promise<Frame> {
    const taken = await this.#core.cameraFrame(cameraId);
    const picture = await this.#render({
      type: "thumbnail",
      source: {
        path: taken.path,
        kind: "image",
        name: cameraId,
        mimeType: taken.path.endsWith(".png") ? "image/png" : "image/jpeg",
        duration: null,
      },
      size: null,
      overlay: "none",
      format: "jpeg",
      quality: CAMERA_QUALITY,
      ffmpeg: null,
      maxPixels: this.#maxPixels,
    });
    const digest = createHash("sha256").update(picture.bytes).digest("hex");
    return { bytes: picture.bytes, etag: `"${digest.slice(0, 32)}"` };
  }
}

/**
 * The output's picture as asked: the player's file as it is when it is already that (a 1.8
 * player encodes it so), else scaled and encoded on the render pool.
 */
async function captureOutput(
  core: Core,
  input: OutputFrameInput,
  render: (job: RenderJob) => Promise<Picture>,
  maxPixels: number,
): Promise<OutputPicture> {
  const { size, format, quality } = input;
  const taken = await core.outputFrame({
    ...(size !== undefined ? { size } : {}),
    format,
    quality,
  });
  const takenFormat = taken.format ?? "png";
  if (
    takenFormat === format && (size === undefined || Math.max(taken.width, taken.height) === size)
  ) {
    const bytes = await Deno.readFile(taken.path);
    return { bytes, contentType: format === "png" ? "image/png" : "image/jpeg" };
  }
  const source = {
    path: taken.path,
    kind: "image" as const,
    name: "output",
    mimeType: takenFormat === "png" ? "image/png" : "image/jpeg",
    duration: null,
    pixels: taken.width * taken.height,
  };
  const job = {
    type: "output-frame" as const,
    source,
    size: size ?? null,
    format,
    quality,
    maxPixels,
  };
  const picture = await render(job);
  return { bytes: picture.bytes, contentType: picture.contentType };
}

/** A file's width x height as the catalog knows it, or null. */
function pixelsOf(file: MediaFile): number | null {
  return file.width !== null && file.height !== null ? file.width * file.height : null;
}
