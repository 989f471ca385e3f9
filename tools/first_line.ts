/**
 * The first line a child process prints (its ready line), shared by the
 * smoke test and the benches: `bench/` imports `tools/`, never the reverse.
 * @module
 */

/** Reads `stream` up to its first newline and returns the line; throws if it ends first. */
export async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`exited before printing: ${text}`);
    text += value;
  }
  reader.releaseLock();
  return text.slice(0, text.indexOf("\n"));
}
