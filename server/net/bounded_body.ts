/**
 * A request body read as it arrives and given up as soon as it passes a
 * limit (the rest is never read: the connection is closed), for bodies
 * without a declared length. The HTTP routes and `/mcp` both read so.
 * @module
 */

/** The body as text, or null once it is over `limit` bytes. */
export async function readBoundedText(
  body: ReadableStream<Uint8Array>,
  limit: number,
): Promise<string | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}
