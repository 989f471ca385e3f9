/**
 * WebSocket frames as a client writes them (RFC 6455), valid or not: any
 * opcode, RSV bits, unmasked, a declared length that differs from the payload.
 * @module
 */

/** WebSocket opcodes (RFC 6455). */
export const Opcode = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** How to build a frame; defaults make a valid masked client frame. */
export interface FrameOptions {
  opcode: number;
  isFinal?: boolean;
  /** RSV1-3 bits (0-7); non-zero without an extension is a protocol error. */
  rsv?: number;
  /** Client frames must be masked. */
  isMasked?: boolean;
  /** Declare this length instead of the payload's. */
  declaredLength?: number;
}

/** One frame as bytes. */
export function encodeFrame(payload: Uint8Array, options: FrameOptions): Uint8Array<ArrayBuffer> {
  const length = options.declaredLength ?? payload.length;
  const isMasked = options.isMasked ?? true;
  const head: number[] = [
    ((options.isFinal ?? true) ? 0x80 : 0) | ((options.rsv ?? 0) << 4) | (options.opcode & 0x0f),
  ];
  const maskBit = isMasked ? 0x80 : 0;
  if (length < 126) head.push(maskBit | length);
  else if (length < 65536) head.push(maskBit | 126, length >> 8, length & 255);
  else {
    head.push(maskBit | 127);
    const big = BigInt(length);
    for (let i = 7; i >= 0; i--) head.push(Number((big >> BigInt(i * 8)) & 255n));
  }
  const mask = [0x12, 0x34, 0x56, 0x78];
  if (isMasked) head.push(...mask);
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  for (let i = 0; i < payload.length; i++) {
    out[head.length + i] = isMasked ? payload[i]! ^ mask[i % 4]! : payload[i]!;
  }
  return out;
}
