/**
 * The shapes a render job and its answer take, shared by `render` and the worker.
 * @module
 */

/** A media file on disk, as the catalog knows it. */
export interface SourceFile {
  /** Absolute path of the media file. */
  path: string;
  /** What the file holds. */
  kind: "image" | "video" | "audio";
  /** The file's display name, e.g. "Intro.mp4"; a card shows it. */
  name: string;
  /** "image/png", "image/jpeg", "audio/wav", "video/mp4", ... */
  mimeType: string;
  /** Seconds, null for stills. */
  duration: number | null;
  /**
   * Width x height as the catalog knows it (the player's probe of the header), or null (absent)
   * when unknown: the pool's local lane makes small pictures only of what it knows to be small.
   */
  pixels?: number | null;
}

/** One picture to make: a square thumbnail, a waveform or the output's picture. */
export type RenderJob =
  | {
    type: "thumbnail";
    source: SourceFile;
    /** 16..512, a square; null keeps the original size (no crop). */
    size: number | null;
    overlay: "play" | "pause" | "none";
    format: "jpeg" | "png";
    /** JPEG quality 1..100 (ignored for PNG). */
    quality: number;
    /** Path or command name of ffmpeg; null means ffmpeg is not used. */
    ffmpeg: string | null;
    /**
     * Pictures (images, video frames, camera frames) of more pixels get a card,
     * refused from their header before anything is decoded: the setting
     * `maxImagePixels` (its default is the setting's, `SETTING_DEFAULTS`), which
     * the service always passes; the worker keeps no default of its own.
     */
    maxPixels: number;
  }
  | {
    type: "waveform";
    source: SourceFile;
    width: number;
    height: number;
    /** Path or command name of ffmpeg; null means ffmpeg is not used. */
    ffmpeg: string | null;
  }
  | {
    type: "output-frame";
    /** The picture the player saved (`output.frame`): PNG or JPEG. */
    source: SourceFile;
    /** The picture's bytes when the service holds them already (then `source.path` is unread). */
    bytes?: Uint8Array;
    /** The longer side (the shape kept); null keeps the picture's size. */
    size: number | null;
    format: "jpeg" | "png";
    /** JPEG quality 1..100 (ignored for PNG). */
    quality: number;
    /** Pictures of more pixels are refused (the setting `maxImagePixels`). */
    maxPixels: number;
  };

/** An encoded picture. */
export interface Rendered {
  bytes: Uint8Array;
  contentType: "image/jpeg" | "image/png";
  width: number;
  height: number;
  /** What the picture shows: the image itself, a frame of the video, a generated card, the output. */
  origin: "image" | "video-frame" | "card" | "output";
}

/** Thrown for what cannot be rendered at all (a thumbnail never throws for a bad file: it gets a card). */
export class RenderError extends Error {
  /** `CORRUPT_MEDIA` broken file, `UNSUPPORTED_MEDIA` wrong kind, `UNAVAILABLE` a missing tool. */
  readonly code: "CORRUPT_MEDIA" | "UNSUPPORTED_MEDIA" | "UNAVAILABLE";
  /** Builds the error. */
  constructor(code: RenderError["code"], message: string) {
    super(message);
    this.name = "RenderError";
    this.code = code;
  }
}
