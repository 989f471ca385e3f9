/**
 * The player's end of the newline-delimited JSON-RPC pipe: the one line
 * reader (`LineTransport`, `protocol/transport.ts`) with the player's bounds
 * on what it reads: a request line is at most 16 MiB and nests at most 1,000
 * levels. The service's end accepts lines of 64 MiB, which a snapshot of a
 * big show needs; a request never comes near either bound.
 * @module
 */
import { RpcError, RpcErrorCode } from "../protocol/jsonrpc.ts";
import { type BytePipe, LineTransport } from "../protocol/transport.ts";
import { isNestedDeeper } from "../lib/json_depth.ts";

/** The longest request line the player reads (bytes, newline excluded); a longer one is refused. */
export const MAX_REQUEST_LINE_BYTES = 16 * 1024 * 1024;

/** The deepest nesting of arrays and objects a request may have; a deeper one is refused unparsed. */
export const MAX_REQUEST_DEPTH = 1000;

/** Options of `RequestTransport`. */
export interface RequestTransportOptions {
  /** The longest line read, in bytes (default `MAX_REQUEST_LINE_BYTES`). */
  maxLineBytes?: number;
  /** The deepest nesting parsed (default `MAX_REQUEST_DEPTH`). */
  maxDepth?: number;
}

/**
 * Newline-delimited JSON-RPC over the player's stdin and stdout, refusing
 * lines over the bounds: one too long or too deep is reported to `onerror`
 * as an INVALID_REQUEST `RpcError` (as is one that is no JSON-RPC message;
 * one that is no JSON, PARSE_ERROR), and reading goes on.
 */
export class RequestTransport extends LineTransport {
  /** Wraps the pipe; call `start()` to begin reading. */
  constructor(pipe: BytePipe, options: RequestTransportOptions = {}) {
    const maxDepth = options.maxDepth ?? MAX_REQUEST_DEPTH;
    const maxLineBytes = options.maxLineBytes ?? MAX_REQUEST_LINE_BYTES;
    super(pipe, {
      maxLineBytes,
      // A buffer kept for the next long line (a flood of them peaked 70 MB lower so).
      retainBytes: maxLineBytes,
      label: "Request line",
      // Each level takes two characters: a shorter line cannot be too deep, and pays no scan.
      precheck: (line) =>
        line.length > 2 * maxDepth + 1 && isNestedDeeper(line, maxDepth)
          ? new RpcError(
            RpcErrorCode.INVALID_REQUEST,
            `Request nested too deep: over ${maxDepth} levels of arrays and objects`,
          )
          : null,
    });
  }
}
