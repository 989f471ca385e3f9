/**
 * What the server writes on a WebSocket (RFC 6455 5.2): unmasked frames,
 * whose header is 2, 4 or 10 bytes, and the frames of the close handshake.
 * Reading, the harder half (masking, fragments, UTF-8, limits), is npm `ws`'s
 * `Receiver` (`ws_receiver.ts`). `ws`'s `Sender.frame` could frame too, but it
 * takes one payload buffer, while a state update is sent as a small per-client
 * part (its `seq`) and a large part shared by every client (`ServerWebSocket.sendParts`).
 * @module
 */

/** Frame opcodes the server sends. */
export const Opcode = { text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

const encoder = new TextEncoder();

/** The header of an unmasked, final frame of `length` payload bytes. */
export function frameHeader(opcode: number, length: number): Uint8Array {
  if (length < 126) return Uint8Array.of(0x80 | opcode, length);
  if (length < 65536) return Uint8Array.of(0x80 | opcode, 126, length >> 8, length & 255);
  const header = new Uint8Array(10);
  header[0] = 0x80 | opcode;
  header[1] = 127;
  new DataView(header.buffer).setBigUint64(2, BigInt(length));
  return header;
}

/** One whole unmasked frame, header and payload in one buffer. */
export function frame(opcode: number, payload: Uint8Array): Uint8Array {
  const header = frameHeader(opcode, payload.length);
  const bytes = new Uint8Array(header.length + payload.length);
  bytes.set(header);
  bytes.set(payload, header.length);
  return bytes;
}

/** A binary frame of `payload`, to queue on any number of sockets (`ServerWebSocket.sendFrame`). */
export function binaryFrame(payload: Uint8Array): Uint8Array {
  return frame(Opcode.binary, payload);
}

/** A text frame of `text`, to queue on any number of sockets (server frames are not masked). */
export function textFrame(text: string): Uint8Array {
  return frame(Opcode.text, encoder.encode(text));
}

/**
 * A close frame: the code, then the reason cut to the 123 bytes a control
 * frame leaves it (at a character boundary). Code 1005 means "none": an empty payload.
 */
export function closeFrame(code: number, reason: string): Uint8Array {
  if (code === 1005) return frame(Opcode.close, new Uint8Array(0));
  let text = reason;
  let bytes = encoder.encode(text);
  while (bytes.length > 123) {
    text = text.slice(0, -1);
    bytes = encoder.encode(text);
  }
  const payload = new Uint8Array(2 + bytes.length);
  payload[0] = code >> 8;
  payload[1] = code & 255;
  payload.set(bytes, 2);
  return frame(Opcode.close, payload);
}
