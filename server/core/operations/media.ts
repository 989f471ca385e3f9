/**
 * What the media operations (`media_operations.ts`) take and answer: their
 * inputs, the pictures, and `MediaSource`, the core's description of the
 * service's media module (`server/media/`), which the transport gives as
 * `ctx.media`. Apart from the operations, so that `operation.ts` can name
 * `MediaSource` without a circle.
 * @module
 */
import { z } from "zod";
import { PICTURE_FORMATS, PICTURE_SIZE } from "../../../protocol/pictures.ts";

/** What a picture shows: an image, a video frame, a generated card, a camera, a waveform, the output. */
export type MediaOrigin =
  | "image"
  | "video-frame"
  | "card"
  | "camera"
  | "waveform"
  | "output"
  | "preset-image";

/** An image answer: its bytes, type and validator. */
export class MediaImage {
  /** Builds the answer. */
  constructor(
    readonly bytes: Uint8Array<ArrayBuffer>,
    readonly contentType: "image/jpeg" | "image/png",
    /** A strong validator of these bytes, quoted (`"a1b2..."`). */
    readonly etag: string,
    readonly origin: MediaOrigin,
  ) {}
}

/** The answer when the client's `If-None-Match` names the current picture. */
export class MediaNotModified {
  /** Builds the answer. */
  constructor(readonly etag: string) {}
}

/** A media operation's answer. */
export type MediaAnswer = MediaImage | MediaNotModified;

/** The schema of a media answer (bytes, not JSON: checked by class). */
export const MediaAnswerSchema = z.union([
  z.instanceof(MediaImage),
  z.instanceof(MediaNotModified),
]);

const IfNoneMatch = z.string().max(2048).optional()
  .describe("The If-None-Match header: a picture with this ETag is answered 304");

/** Query parameters come as text: a whole number in a range. */
const wholeNumber = (min: number, max: number, name: string) =>
  z.coerce.number({ error: `${name} must be a whole number from ${min} to ${max}` })
    .int(`${name} must be a whole number from ${min} to ${max}`)
    .min(min, `${name} must be from ${min} to ${max}`)
    .max(max, `${name} must be from ${min} to ${max}`);

/** Input of `thumbnail`. */
export const ThumbnailInput = z.strictObject({
  projectId: z.string().min(1),
  fileId: z.string().min(1),
  size: wholeNumber(PICTURE_SIZE.min, PICTURE_SIZE.max, "size").optional()
    .describe("Width and height of a square picture, 16 to 512; omitted: the original size"),
  overlay: z.enum(["play", "pause", "none"]).default("none")
    .describe("A play or pause symbol drawn over the centre"),
  format: z.enum(PICTURE_FORMATS).default("jpeg")
    .describe(
      "The answer's format; default: the path's extension's (.jpg and .jpeg JPEG, .png PNG). Given, it wins over the extension; Content-Type follows it",
    ),
  quality: wholeNumber(1, 100, "quality").default(85).describe("JPEG quality, 1 to 100"),
  ifNoneMatch: IfNoneMatch,
});
/** A thumbnail request. */
export type ThumbnailInput = z.output<typeof ThumbnailInput>;

/** Input of `waveform`. */
export const WaveformInput = z.strictObject({
  projectId: z.string().min(1),
  fileId: z.string().min(1),
  width: wholeNumber(16, 4096, "width").default(1024).describe("Pixels, 16 to 4096"),
  height: wholeNumber(16, 1024, "height").default(256).describe("Pixels, 16 to 1024"),
  ifNoneMatch: IfNoneMatch,
});
/** A waveform request. */
export type WaveformInput = z.output<typeof WaveformInput>;

/** Input of `cameraThumbnail`. */
export const CameraThumbnailInput = z.strictObject({
  cameraId: z.string().min(1).describe("A device id from /api/v1/cameras, or default"),
  ifNoneMatch: IfNoneMatch,
});
/** A camera thumbnail request. */
export type CameraThumbnailInput = z.output<typeof CameraThumbnailInput>;

/**
 * Input of `outputFrame`: the picture the output shows now. `size`, `format` and
 * `quality` are the thumbnail's fields (one declaration, the same rules); only `size`
 * reads differently: the output's picture keeps its shape, it is not cut square.
 */
export const OutputFrameInput = z.strictObject({
  size: ThumbnailInput.shape.size.describe(
    "The longer side of the picture, 16 to 512, the output's aspect ratio kept; omitted: the output's size for a local caller, at most 1280 for a remote one (a paired device)",
  ),
  format: ThumbnailInput.shape.format.describe(
    "The answer's format; default: the path's extension's (.jpg and .jpeg JPEG, .png PNG). Given, it wins over the extension",
  ),
  quality: ThumbnailInput.shape.quality,
  ifNoneMatch: IfNoneMatch,
});
/** An output frame request. */
export type OutputFrameInput = z.output<typeof OutputFrameInput>;

/** Input of `presetImage`: one `IMPORTED` image of a preset, as it was imported. */
export const PresetImageInput = z.strictObject({
  kind: z.string().describe("effect, visualizer or transition"),
  presetId: z.string().min(1),
  name: z.string().min(1).describe("The image's name in the shader's IMPORTED"),
  ifNoneMatch: IfNoneMatch,
});
/** A preset image request. */
export type PresetImageInput = z.output<typeof PresetImageInput>;

/** Who asks for a picture: the media module's queue takes turns by client and drops abandoned work. */
export interface MediaRequest {
  /** The caller: its paired device (`device:<id>`, from whichever address), else its address. */
  client: string;
  /** Local callers are not limited (as with the rate limit). */
  isLocal: boolean;
  /** Aborts when the caller has left. */
  signal?: AbortSignal | undefined;
}

/** What makes the pictures (the service's media module); a picture in memory is answered at once. */
export interface MediaSource {
  /** @throws {CueportError} NOT_FOUND, NOT_READY, RATE_LIMITED (too many variants being made) */
  thumbnail(input: ThumbnailInput, request?: MediaRequest): MediaAnswer | Promise<MediaAnswer>;
  /** @throws {CueportError} NOT_FOUND, NOT_READY, INVALID_MESSAGE (not audio), UNAVAILABLE, CORRUPT_MEDIA, RATE_LIMITED */
  waveform(input: WaveformInput, request?: MediaRequest): MediaAnswer | Promise<MediaAnswer>;
  /** @throws {CueportError} NOT_FOUND, NOT_READY, UNAVAILABLE (no ffmpeg for a device) */
  cameraThumbnail(input: CameraThumbnailInput): Promise<MediaAnswer>;
  /** @throws {CueportError} NOT_READY, NO_OUTPUT (no output runs), RATE_LIMITED */
  outputFrame(input: OutputFrameInput, request?: MediaRequest): Promise<MediaAnswer>;
  /** @throws {CueportError} NOT_FOUND (no such preset or image, or its file is gone) */
  presetImage?(input: PresetImageInput): Promise<MediaAnswer>;
}
