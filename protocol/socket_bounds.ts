/**
 * The bounds every socket of the output's pages keeps (`docs/output.md`, "The page's
 * sockets"): the largest message of each kind, and a token bucket of messages and bytes.
 * A page past a bound is closed with `CLOSE_POLICY` (too fast, not a message of its
 * schema) or `CLOSE_TOO_BIG` (too large): the WebSocket codes for both (RFC 6455, 7.4.1).
 * The values themselves are declared beside each socket's schemas (`output.ts`,
 * `editor_page.ts`).
 * @module
 */

/** The bounds of one socket: sizes in UTF-16 code units (text) or bytes (binary). */
export interface SocketBounds {
  /** The longest text message (JSON), in UTF-16 code units. */
  maxTextChars: number;
  /** The largest binary message, bytes; 0: the socket takes none. */
  maxBinaryBytes: number;
  /** Messages a second, sustained. */
  messagesPerSecond: number;
  /** Messages taken at once (the bucket's capacity). */
  burstMessages: number;
  /** Bytes (text counted in code units) a second, sustained. */
  bytesPerSecond: number;
  /** Bytes taken at once (the bucket's capacity). */
  burstBytes: number;
}

/** The close code of a page that sent what it may not (not its schema, too fast). */
export const CLOSE_POLICY = 1008;
/** The close code of a page that sent a message past its size bound. */
export const CLOSE_TOO_BIG = 1009;

/**
 * The WebSocket subprotocol a page offers: `cueport.<secret>`, the secret the player gives its
 * browser's pages at each browser start (`globalThis.cueportPageSecret`), never in an address.
 * The pages get the prefix with it (`globalThis.cueportPageSecretPrefix`, `pageSecretScript`).
 */
export const PAGE_SECRET_PROTOCOL_PREFIX = "cueport.";
