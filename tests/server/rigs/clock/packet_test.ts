import assert from "node:assert/strict";
import { decodePacket, encodePacket, PACKET_BYTES } from "../../../../server/rigs/clock/mod.ts";

Deno.test("encodePacket() and decodePacket() round-trip a request and an answer of the same size", () => {
  const request = { kind: "request", id: 0xfffffffe, t1: 1795997699798.8606 } as const;
  const answer = { kind: "answer", id: 7, t1: 1.5, t2: 251.25, t3: 251.5, error: 0.25 } as const;
  assert.equal(encodePacket(request).length, PACKET_BYTES);
  assert.equal(encodePacket(answer).length, PACKET_BYTES);
  assert.deepEqual(decodePacket(encodePacket(request)), request);
  assert.deepEqual(decodePacket(encodePacket(answer)), answer);
});

Deno.test("decodePacket() refuses what is not a packet of this version", () => {
  const good = encodePacket({ kind: "answer", id: 1, t1: 1, t2: 2, t3: 3, error: 0 });
  const changed = (at: number, value: number) => {
    const bytes = good.slice();
    bytes[at] = value;
    return bytes;
  };
  assert.equal(decodePacket(good.slice(0, 39)), null, "short");
  assert.equal(decodePacket(new Uint8Array(1000)), null, "long");
  assert.equal(decodePacket(changed(0, 0x58)), null, "magic");
  assert.equal(decodePacket(changed(4, 2)), null, "version");
  assert.equal(decodePacket(changed(5, 3)), null, "kind");
  const backward = encodePacket({ kind: "answer", id: 1, t1: 1, t2: 3, t3: 2, error: 0 });
  assert.equal(decodePacket(backward), null, "answered before it arrived");
  const nan = encodePacket({ kind: "request", id: 1, t1: NaN });
  assert.equal(decodePacket(nan), null, "not a time");
});
