/**
 * The chunk walk of a WAV as its bytes arrive: an upload that is a WAV
 * (RIFF/WAVE) with more than `MAX_CHUNKS` chunks before its `data` chunk is
 * refused at that chunk, as the player's probe and `readWavFormat` refuse it
 * once the file is whole, with the same code and message. An 8 MiB WAV bomb
 * of a million empty chunks is then refused after some 8 KiB, not after all
 * of it has been received and staged (issue 42).
 * @module
 */
import { CueportError } from "../core/mod.ts";
import { MAX_CHUNKS } from "../../protocol/media_limits.ts";

/** Walks a WAV's chunk headers over the pieces of its bytes, in order. */
export class WavChunkWalk {
  /** Bytes seen so far. */
  #received = 0;
  /** The RIFF header (12 bytes), then the header of the chunk at `#next` (8 bytes). */
  #head = new Uint8Array(12);
  #filled = 0;
  #state: "riff" | "chunks" | "done" = "riff";
  /** Where the next chunk's header starts. */
  #next = 12;
  #chunks = 0;

  /**
   * Walks the next piece of the bytes.
   * @throws {CueportError} CORRUPT_MEDIA at the chunk after `MAX_CHUNKS` before `data`
   */
  push(bytes: Uint8Array): void {
    const base = this.#received;
    this.#received += bytes.length;
    while (this.#state !== "done") {
      const want = this.#state === "riff" ? 12 : 8;
      const at = (this.#state === "riff" ? 0 : this.#next) + this.#filled - base;
      if (at >= bytes.length) return;
      const piece = bytes.subarray(at, at + want - this.#filled);
      this.#head.set(piece, this.#filled);
      this.#filled += piece.length;
      if (this.#filled < want) return;
      this.#filled = 0;
      if (this.#state === "riff") this.#state = isWave(this.#head) ? "chunks" : "done";
      else this.#chunk();
    }
  }

  /** The header of chunk `#chunks` is whole: refuse past the limit, or step over the chunk. */
  #chunk(): void {
    if (this.#chunks >= MAX_CHUNKS) {
      throw new CueportError(
        "CORRUPT_MEDIA",
        `Corrupt WAV: more than ${MAX_CHUNKS} chunks before its "fmt " and "data" chunks`,
      );
    }
    if (ascii(this.#head, 0, 4) === "data") {
      this.#state = "done";
      return;
    }
    const size = new DataView(this.#head.buffer).getUint32(4, true);
    this.#next += 8 + size + (size % 2);
    this.#chunks++;
  }
}

/**
 * `chunks` as they are, walked as a WAV's (`WavChunkWalk`): a WAV bomb ends the stream with
 * CORRUPT_MEDIA before the piece that shows it is passed on. Anything but a WAV passes as is.
 */
export async function* walkingWav(
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  const walk = new WavChunkWalk();
  for await (const chunk of chunks) {
    walk.push(chunk);
    yield chunk;
  }
}

function isWave(head: Uint8Array): boolean {
  return ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WAVE";
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(from, to));
}
