/**
 * What one WebSocket connection's socket holds unsent, as its budget counts
 * it (`SocketClient`): `bufferedAmount` plus `FRAME_BYTES` for each message
 * handed to the socket and not yet written out.
 * @module
 */
import { ServerWebSocket } from "../net/mod.ts";

/**
 * What each unsent message costs beyond its length. Measured with Deno 2.9.6
 * on a bare `Deno.upgradeWebSocket` server answering every message of a
 * client that never read: 499,000 unsent answers of 125 bytes, RSS up 484 MB,
 * about 970 bytes an answer. `ServerWebSocket` queues less (a header and a
 * payload buffer), so this now overcounts: kept, as the safe side.
 */
export const FRAME_BYTES = 1024;

/** The messages handed to one socket, counted until the network has taken them. */
export class Outgoing {
  #ws: ServerWebSocket;
  /** Lengths of the messages handed to the socket and maybe unsent, oldest first from `#at`. */
  #frames: number[] = [];
  #at = 0;
  #length = 0;

  /** Counts what is sent through `ws`. */
  constructor(ws: ServerWebSocket) {
    this.#ws = ws;
  }

  /** Sends a text message while the socket is open. */
  send(text: string): void {
    if (this.#ws.readyState !== ServerWebSocket.OPEN) return;
    this.#ws.send(text);
    this.#count(text.length);
  }

  /** Sends one text message in parts (a shared tail), `length` in all. */
  sendParts(parts: Uint8Array[], length: number): void {
    this.#ws.sendParts(parts);
    this.#count(length);
  }

  /**
   * Unsent bytes as the budget counts them: `bufferedAmount` plus
   * `FRAME_BYTES` for each message not yet written out. Messages go out
   * oldest first, so those the socket no longer holds are the oldest.
   */
  unsent(): number {
    const buffered = this.#ws.bufferedAmount;
    const frames = this.#frames;
    while (this.#length > buffered && this.#at < frames.length) {
      this.#length -= frames[this.#at++]!;
    }
    if (this.#at === frames.length) {
      frames.length = 0;
      this.#at = 0;
      this.#length = 0;
    } else if (this.#at > 4096) {
      this.#frames = frames.slice(this.#at);
      this.#at = 0;
    }
    return buffered + (this.#frames.length - this.#at) * FRAME_BYTES;
  }

  /** Counts a message of `length` handed to the socket. */
  #count(length: number): void {
    this.#frames.push(length);
    this.#length += length;
  }
}
