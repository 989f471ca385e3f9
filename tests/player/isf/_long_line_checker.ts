/**
 * A stand-in for the check's process that writes one line without end (64 KiB at a time, no
 * newline, up to 64 MiB), then ends.
 * @module
 */
const chunk = new Uint8Array(64 * 1024).fill(0x61);
try {
  for (let i = 0; i < 1024; i++) {
    for (let at = 0; at < chunk.length;) at += await Deno.stdout.write(chunk.subarray(at));
  }
} catch {
  // The reader ended this process: its pipe is gone.
}
