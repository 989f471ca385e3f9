/**
 * A streaming reader of one file field of a `multipart/form-data` body: the
 * file's bytes are yielded as they arrive, so an upload of any size is never
 * held in memory.
 * @module
 */
import { CueportError } from "../core/mod.ts";

const encoder = new TextEncoder();
const HEADER_END = encoder.encode("\r\n\r\n");
const MAX_HEADER_BYTES = 16 * 1024;

function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0]!;
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(first, from); i !== -1 && i <= last; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function malformed(message: string): CueportError {
  return new CueportError("INVALID_MESSAGE", `Invalid multipart body: ${message}`, {
    field: "body",
  });
}

/** The boundary of a `multipart/form-data` content type, or null for another type. */
export function multipartBoundary(contentType: string | null): string | null {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) return null;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2])! : null;
}

/** The file part named `field`: its file name and its bytes as they arrive. */
export interface FilePart {
  filename: string;
  /** The part's content type as the client declared it (not trusted). */
  contentType: string | null;
  chunks: AsyncGenerator<Uint8Array>;
}

/**
 * Finds the part named `field` in a multipart body and streams it; parts
 * before it are skipped, parts after it are not read.
 * @throws {CueportError} INVALID_MESSAGE when the body is malformed or has no such file part
 */
export async function readFilePart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  field: string,
): Promise<FilePart> {
  const reader = body.getReader();
  const dashBoundary = encoder.encode(`--${boundary}`);
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  let buf: Uint8Array = new Uint8Array(0);
  const more = async (): Promise<boolean> => {
    const { value, done } = await reader.read();
    if (done) return false;
    buf = concat(buf, value);
    return true;
  };
  // The first boundary may start the body (no CRLF before it).
  let at = indexOfBytes(buf, dashBoundary);
  while (at < 0) {
    if (!(await more())) throw malformed("no boundary found");
    at = indexOfBytes(buf, dashBoundary);
  }
  buf = buf.subarray(at + dashBoundary.length);
  for (;;) {
    while (buf.length < 2) if (!(await more())) throw malformed("truncated");
    if (buf[0] === 0x2d && buf[1] === 0x2d) {
      throw new CueportError("INVALID_MESSAGE", `Invalid ${field}: no file part named "${field}"`, {
        field,
      });
    }
    let end = indexOfBytes(buf, HEADER_END);
    while (end < 0) {
      if (buf.length > MAX_HEADER_BYTES) throw malformed("part headers too long");
      if (!(await more())) throw malformed("truncated part headers");
      end = indexOfBytes(buf, HEADER_END);
    }
    const headers = new TextDecoder().decode(buf.subarray(0, end)).split("\r\n");
    buf = buf.subarray(end + HEADER_END.length);
    const disposition = headers.find((h) => /^content-disposition:/i.test(h)) ?? "";
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    const type = headers.find((h) => /^content-type:/i.test(h))?.split(":")[1]?.trim() ?? null;
    const chunks = partBody();
    if (name === field && filename !== undefined) {
      return { filename, contentType: type, chunks };
    }
    for await (const _ of chunks) { /* skip another field */ }
  }

  async function* partBody(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const i = indexOfBytes(buf, delimiter);
      if (i >= 0) {
        if (i > 0) yield buf.slice(0, i);
        buf = buf.subarray(i + delimiter.length);
        return;
      }
      const safe = buf.length - (delimiter.length - 1);
      if (safe > 0) {
        yield buf.slice(0, safe);
        buf = buf.subarray(safe);
      }
      if (!(await more())) throw malformed("truncated before the closing boundary");
    }
  }
}
