import assert from "node:assert/strict";
import * as osc from "osc-min";
import { decodePacket, decodePlainMessage } from "../../../server/osc/decode.ts";
import { seededRandom } from "../../../tools/testing/random.ts";

function bytes(packet: osc.OscPacketInput): Uint8Array {
  const view = osc.toBuffer(packet);
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** osc-min's answer: the packet, or the error's message. */
function reference(data: Uint8Array): unknown {
  try {
    return osc.fromBuffer(data);
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function ours(data: Uint8Array): unknown {
  try {
    return decodePacket(data);
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const STRINGS = ["", "a", "abc", "abcd", "reply", "base=1", "h\u00e9llo", "x".repeat(2000)];

function message(next: () => number): osc.OscMessageInput {
  const address = ["/play", "/control/A", "/clip/c1/trigger", "/action", "/\u00e4"][
    Math.floor(next() * 5)
  ]!;
  const args: osc.OscArgInput[] = [];
  for (let n = Math.floor(next() * 5); n > 0; n--) {
    const pick = Math.floor(next() * 9);
    if (pick === 0) args.push({ type: "integer", value: Math.floor(next() * 2 ** 32) - 2 ** 31 });
    else if (pick === 1) args.push({ type: "float", value: next() * 1000 - 500 });
    else if (pick === 2) args.push({ type: "double", value: next() * 1e9 });
    else if (pick === 3) args.push({ type: "bigint", value: BigInt(Math.floor(next() * 1e15)) });
    else if (pick === 4) args.push({ type: "string", value: STRINGS[Math.floor(next() * 8)]! });
    else if (pick === 5) args.push({ type: "true" }, { type: "false" });
    else if (pick === 6) args.push({ type: "null" }, { type: "bang" });
    else if (pick === 7) args.push({ type: "blob", value: new Uint8Array([1, 2, 3]) });
    else args.push({ type: "symbol", value: "sym" });
  }
  return { address, args };
}

Deno.test("OSC decode: the direct pass gives osc-min's answer for every message, and its error for every broken one", () => {
  const next = seededRandom(7);
  let direct = 0;
  for (let i = 0; i < 3000; i++) {
    const data = bytes(message(next));
    assert.deepEqual(ours(data), reference(data));
    if (decodePlainMessage(data)) direct++;
    // The same message broken: a byte changed, or cut short.
    const broken = data.slice(0, Math.max(4, data.length - 4 * Math.floor(next() * 3)));
    broken[Math.floor(next() * broken.length)] = Math.floor(next() * 256);
    assert.deepEqual(ours(broken), reference(broken), `broken ${i}`);
  }
  // Most of these take the direct pass (blobs, symbols, non-ASCII and long strings do not).
  assert.ok(direct > 1000, `${direct} of 3000 took the direct pass`);
});

Deno.test("OSC decode: a desk's fader message takes the direct pass", () => {
  const data = bytes({ address: "/control/A", args: [{ type: "float", value: 0.5 }] });
  assert.deepEqual(decodePlainMessage(data), {
    address: "/control/A",
    args: [{ type: "float", value: 0.5 }],
    oscType: "message",
  });
});

Deno.test("OSC decode: bundles go to osc-min", () => {
  const data = bytes({
    timetag: [0, 1],
    elements: [{ address: "/play", args: [] }],
  });
  assert.equal(decodePlainMessage(data), null);
  assert.equal(decodePacket(data).oscType, "bundle");
});
