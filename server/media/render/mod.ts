/**
 * Rendering media files into image bytes, inside a worker: square thumbnails
 * (images, video frames through ffmpeg, or generated cards, with a play or
 * pause overlay), waveform PNGs and the output's picture scaled (`output_frame.ts`).
 * See docs/media.md.
 * @module
 */
import { renderOutputFrame } from "./output_frame.ts";
import { renderThumbnail } from "./thumbnail.ts";
import type { Rendered, RenderJob } from "./types.ts";
import { renderWaveform } from "./waveform.ts";

export { RenderError } from "./types.ts";
export type { Rendered, RenderJob, SourceFile } from "./types.ts";

/**
 * Renders one job. Deterministic: the same file and parameters give the same bytes.
 * A thumbnail never throws for a bad file (it gets a card); a waveform throws
 * a RenderError for a corrupt or non-audio file, or when ffmpeg is needed and missing.
 * @example
 * ```ts
 * const source = { path: "/data/intro.png", kind: "image", name: "intro.png",
 *   mimeType: "image/png", duration: null } as const;
 * const { bytes } = await render({ type: "thumbnail", source, size: 256, overlay: "play",
 *   format: "jpeg", quality: 85, ffmpeg: null, maxPixels: 10_000_000 });
 * ```
 */
export function render(job: RenderJob): Promise<Rendered> {
  switch (job.type) {
    case "thumbnail":
      return renderThumbnail(job);
    case "waveform":
      return renderWaveform(job);
    case "output-frame":
      return renderOutputFrame(job);
  }
}
