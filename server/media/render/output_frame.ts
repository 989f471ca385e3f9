/**
 * An output-frame job: the output's picture as the player saved it (a PNG at the output's
 * size, from a player before protocol 1.8, or a picture of another size or format than
 * asked), scaled so its longer side is the size asked (its shape kept, nothing cut) and
 * encoded as JPEG or PNG.
 * @module
 */
import { encodeJpeg, encodePng } from "./codecs.ts";
import { decodeImage, readImageFile } from "./image.ts";
import { resample } from "./resize.ts";
import type { Rendered, RenderJob } from "./types.ts";

type OutputFrameJob = Extract<RenderJob, { type: "output-frame" }>;

/** The width and height whose longer side is `size`, of a `width` x `height` picture. */
export function fitSize(width: number, height: number, size: number): [number, number] {
  const scale = size / Math.max(width, height);
  return [Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale))];
}

/**
 * Renders the output's picture.
 * @throws {RenderError} CORRUPT_MEDIA over `maxPixels`; an Error for an undecodable file
 */
export async function renderOutputFrame(job: OutputFrameJob): Promise<Rendered> {
  const bytes = job.bytes ?? await readImageFile(job.source.path, job.maxPixels);
  let raster = await decodeImage(bytes, job.size, job.maxPixels);
  if (job.size !== null) {
    const [w, h] = fitSize(raster.width, raster.height, job.size);
    if (w !== raster.width || h !== raster.height) {
      raster = resample(raster, { x: 0, y: 0, w: raster.width, h: raster.height }, w, h);
    }
  }
  const isPng = job.format === "png";
  return {
    bytes: isPng ? encodePng(raster) : await encodeJpeg(raster, job.quality),
    contentType: isPng ? "image/png" : "image/jpeg",
    width: raster.width,
    height: raster.height,
    origin: "output",
  };
}
