/**
 * A media file as an HTTP answer with byte ranges: the browser seeks in a
 * video by asking for ranges, and plays nothing it cannot seek in.
 * @module
 */

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
};

/** The content type of a page asset by extension. */
export function assetType(name: string): string {
  return TYPES[name.split(".").pop() ?? ""] ?? "application/octet-stream";
}

/** Answers `request` with the file at `path` (whole, or the one range asked for). */
export async function fileResponse(
  request: Request,
  path: string,
  mimeType: string,
): Promise<Response> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return new Response("Not found", { status: 404 });
  }
  const size = (await file.stat()).size;
  const headers = new Headers({
    "content-type": mimeType,
    "accept-ranges": "bytes",
    "cache-control": "no-store",
  });
  const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.get("range") ?? "");
  if (!range) {
    headers.set("content-length", String(size));
    return new Response(file.readable, { status: 200, headers });
  }
  const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
  const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
  if (start >= size || end < start) {
    file.close();
    headers.set("content-range", `bytes */${size}`);
    return new Response(null, { status: 416, headers });
  }
  await file.seek(start, Deno.SeekMode.Start);
  headers.set("content-range", `bytes ${start}-${end}/${size}`);
  headers.set("content-length", String(end - start + 1));
  return new Response(limited(file, end - start + 1), { status: 206, headers });
}

/** The next `length` bytes of `file`, then it is closed. */
function limited(file: Deno.FsFile, length: number): ReadableStream<Uint8Array> {
  let left = length;
  return new ReadableStream({
    async pull(controller) {
      const buffer = new Uint8Array(Math.min(64 * 1024, left));
      const n = left > 0 ? await file.read(buffer) : null;
      if (n === null || n === 0) {
        file.close();
        controller.close();
        return;
      }
      left -= n;
      controller.enqueue(buffer.subarray(0, n));
    },
    cancel() {
      file.close();
    },
  });
}
