/**
 * The body of a POST to `/mcp`: read within the service's body limit (a
 * declared length over it is refused before reading, a chunked one as soon
 * as it passes), under the connection's header deadline, and parsed as JSON
 * no deeper than any message needs. Errors answer as the SDK's transport
 * does (JSON-RPC error, HTTP status: `errors.ts`).
 * @module
 */
import { isNestedDeeper } from "../../lib/json_depth.ts";
import { readBoundedText } from "../net/mod.ts";
import { rpcErrorResponse } from "./errors.ts";

/** How deep a message may nest (a tool's arguments: an edit batch nests about 8). */
const MAX_DEPTH = 64;

/** The parsed body, or the error answer. */
export async function readBoundedJson(
  request: Request,
  limit: number,
  peer: { readingBody?(isReading: boolean): void },
): Promise<{ value: unknown } | Response> {
  const tooLarge = () =>
    rpcErrorResponse(413, -32000, `Payload Too Large: the body is over ${limit} bytes`);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return tooLarge();
  if (request.body === null) return rpcErrorResponse(400, -32700, "Parse error: empty body");
  peer.readingBody?.(true);
  let text: string | null;
  try {
    text = await readBoundedText(request.body, limit);
  } catch {
    return rpcErrorResponse(400, -32700, "Parse error: the client closed the connection mid-body");
  } finally {
    peer.readingBody?.(false);
  }
  if (text === null) return tooLarge();
  if (text.length > 2 * MAX_DEPTH && isNestedDeeper(text, MAX_DEPTH)) {
    return rpcErrorResponse(
      400,
      -32700,
      `Parse error: JSON nested deeper than ${MAX_DEPTH} levels`,
    );
  }
  try {
    return { value: JSON.parse(text) };
  } catch {
    return rpcErrorResponse(400, -32700, "Parse error: Invalid JSON");
  }
}
