import assert from "node:assert/strict";
import { encodeWav } from "../../../player/media/encode.ts";
import { MAX_CHUNKS } from "../../../protocol/media_limits.ts";
import { walkingWav, WavChunkWalk } from "../../../server/media/wav_chunks.ts";

/** A WAV of `junk` empty chunks before its own (a tone's) "fmt " and "data". */
function wavAfterJunk(junk: number): Uint8Array {
  const tone = encodeWav(new Float32Array(800), 8000);
  const out = new Uint8Array(tone.length + junk * 8);
  out.set(tone.subarray(0, 12));
  for (let i = 0; i < junk; i++) out.set(new TextEncoder().encode("JUNK"), 12 + i * 8);
  out.set(tone.subarray(12), 12 + junk * 8);
  return out;
}

/** Walks `bytes` in pieces of `size`; the bytes walked when it was refused, or null. */
function refusedAt(bytes: Uint8Array, size: number): number | null {
  const walk = new WavChunkWalk();
  for (let at = 0; at < bytes.length; at += size) {
    try {
      walk.push(bytes.subarray(at, at + size));
    } catch (error) {
      assert.match(String(error), /CORRUPT_MEDIA|more than 1000 chunks/);
      assert.equal((error as { code?: string }).code, "CORRUPT_MEDIA");
      return at + size;
    }
  }
  return null;
}

Deno.test("WavChunkWalk refuses a WAV at the chunk past the limit before data, in pieces of any size", () => {
  const bomb = wavAfterJunk(1_000_000);
  for (const size of [1, 3, 8, 4096, 65536]) {
    const at = refusedAt(bomb, size);
    assert.ok(at !== null && at <= 12 + (MAX_CHUNKS + 1) * 8 + size, `${size}: at ${at}`);
  }
});

Deno.test("WavChunkWalk passes what the player's probe takes: up to its limit of chunks, and non-WAVs", () => {
  // The tone's "fmt " and "data" are two chunks: the player takes MAX_CHUNKS - 2 before them.
  for (const size of [1, 5, 4096]) {
    assert.equal(refusedAt(wavAfterJunk(MAX_CHUNKS - 2), size), null);
    assert.notEqual(refusedAt(wavAfterJunk(MAX_CHUNKS - 1), size), null);
    assert.equal(refusedAt(new Uint8Array(100_000), size), null);
  }
});

Deno.test("walkingWav passes the pieces on as they are, and ends a bomb's stream with CORRUPT_MEDIA", async () => {
  async function* pieces(bytes: Uint8Array) {
    for (let at = 0; at < bytes.length; at += 1000) yield bytes.subarray(at, at + 1000);
  }
  const wav = wavAfterJunk(10);
  const out: number[] = [];
  for await (const piece of walkingWav(pieces(wav))) out.push(...piece);
  assert.deepEqual(new Uint8Array(out), wav);
  let passed = 0;
  await assert.rejects(async () => {
    for await (const piece of walkingWav(pieces(wavAfterJunk(1_000_000)))) passed += piece.length;
  }, /more than 1000 chunks/);
  assert.ok(passed < 12 * 1024, `${passed} bytes passed on`);
});
