/** Test doubles for the parts of the OSC port: a socket that records, a peer on it. */
import { decodePacket } from "../../../server/osc/decode.ts";
import type { Peer } from "../../../server/osc/outbox.ts";

/** A reply as sent: its address and JSON body. */
export interface SentReply {
  address: string;
  body: { status: string; data?: unknown; error?: unknown };
}

/** A socket that keeps the replies sent through it, decoded. */
export function recordingSocket(): Peer["socket"] & { sent: SentReply[] } {
  const sent: SentReply[] = [];
  return {
    sent,
    send(bytes: Uint8Array<ArrayBuffer>) {
      const packet = decodePacket(bytes);
      if (packet.oscType !== "message") throw new Error("expected a message");
      const text = packet.args[0]?.value;
      sent.push({ address: packet.address, body: JSON.parse(String(text)) });
    },
  };
}

/** A remote sender at `address`, answered through `socket`. */
export function peerOn(socket: Peer["socket"], address = "10.0.0.9"): Peer {
  return {
    hostname: address,
    port: 9000,
    address,
    isLocal: false,
    socket,
    size: 64,
    isPrepaid: false,
  };
}
