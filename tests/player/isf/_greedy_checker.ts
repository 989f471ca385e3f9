/**
 * A stand-in for the check's process whose memory grows without bound between two
 * progress reports: V8 ends it at its heap limit (`--max-old-space-size`).
 * @module
 */
await Deno.stdin.readable.getReader().read();
const kept: number[][] = [];
while (true) kept.push(new Array(1 << 16).fill(kept.length));
