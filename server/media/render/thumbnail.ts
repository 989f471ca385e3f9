/**
 * A thumbnail job: the picture (an image's pixels, a video's frame from its
 * first second, or a card), made square by centre crop, with the overlay,
 * encoded as JPEG or PNG.
 * @module
 */
import { renderCard } from "./card.ts";
import { encodeJpeg, encodePng } from "./codecs.ts";
import { ffmpegOutput } from "./ffmpeg.ts";
import { decodeImage, readImageFile } from "./image.ts";
import { drawOverlay } from "./overlay.ts";
import type { Raster } from "./raster.ts";
import { coverSquare } from "./resize.ts";
import type { Rendered, RenderJob, SourceFile } from "./types.ts";

/** The side of a card when the original size is asked for (a card has none). */
export const CARD_SIZE = 512;
/** Milliseconds ffmpeg gets to give a video's frame. */
export const FRAME_DEADLINE_MS = 10_000;

type ThumbnailJob = Extract<RenderJob, { type: "thumbnail" }>;

/** Renders a thumbnail; never throws for a bad file (it gets a card). */
export async function renderThumbnail(job: ThumbnailJob): Promise<Rendered> {
  const picture = await pictureOf(job);
  let raster: Raster, origin: Rendered["origin"];
  if (picture) {
    raster = job.size === null ? picture.raster : coverSquare(picture.raster, job.size);
    origin = picture.origin;
  } else {
    const side = job.size ?? CARD_SIZE;
    raster = renderCard(job.source, side, side);
    origin = "card";
  }
  drawOverlay(raster, job.overlay);
  const bytes = job.format === "png" ? encodePng(raster) : await encodeJpeg(raster, job.quality);
  return {
    bytes,
    contentType: job.format === "png" ? "image/png" : "image/jpeg",
    width: raster.width,
    height: raster.height,
    origin,
  };
}

async function pictureOf(
  job: ThumbnailJob,
): Promise<{ raster: Raster; origin: "image" | "video-frame" } | null> {
  try {
    if (job.source.kind === "image") {
      const bytes = await readImageFile(job.source.path, job.maxPixels);
      return { raster: await decodeImage(bytes, job.size, job.maxPixels), origin: "image" };
    }
    if (job.source.kind === "video" && job.ffmpeg !== null) {
      const raster = await videoFrame(job.source, { ...job, ffmpeg: job.ffmpeg });
      return { raster, origin: "video-frame" };
    }
  } catch {
    // Undecodable, too many pixels, missing, or ffmpeg failed: the card stands in.
  }
  return null;
}

/**
 * A frame from the video's first second (at 1 s, or half-way through a
 * shorter video, past a fade from black), piped out of ffmpeg as PNG and
 * scaled by ffmpeg only as far as the square still needs (area filter).
 * ffmpeg's decoder refuses frames of more than `maxPixels` (`-max_pixels`),
 * so a video whose header declares a huge frame costs no memory either.
 */
async function videoFrame(
  source: SourceFile,
  options: { size: number | null; ffmpeg: string; maxPixels: number },
) {
  const { size, ffmpeg, maxPixels } = options;
  const at = source.duration ? Math.min(1, source.duration / 2) : 0;
  const scale = size === null
    ? []
    : ["-vf", `scale=${size}:${size}:force_original_aspect_ratio=increase:flags=area`];
  const grab = (seconds: number) =>
    ffmpegOutput({
      command: ffmpeg,
      args: [
        ...(seconds > 0 ? ["-ss", seconds.toFixed(3)] : []),
        ...["-max_pixels", String(maxPixels)],
        "-i",
        source.path,
        "-map",
        "0:v:0",
        "-frames:v",
        "1",
        ...scale,
        "-f",
        "image2pipe",
        "-c:v",
        "png",
        "pipe:1",
      ],
      deadlineMs: FRAME_DEADLINE_MS,
      maxBytes: 128 * 1024 * 1024,
    });
  let png = await grab(at);
  if (png.length === 0 && at > 0) png = await grab(0); // the seek went past the last frame
  return await decodeImage(png, size, maxPixels);
}
