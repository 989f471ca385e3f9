/**
 * The media file rules both sides refuse by, with the same `CORRUPT_MEDIA` answer: the player's
 * probe (`player/media/probe.ts`), the service's WAV reader (`server/media/render/wav.ts`) and
 * its walk of an upload as it streams (`server/media/wav_chunks.ts`).
 * @module
 */

/**
 * Most WAV chunks, or JPEG segments, walked before the ones that measure the file: a file of a
 * million empty chunks is refused at once instead of holding a reader.
 */
export const MAX_CHUNKS = 1000;
