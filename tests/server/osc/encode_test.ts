import assert from "node:assert/strict";
import * as osc from "osc-min";
import { encodePlainMessage } from "../../../server/osc/encode.ts";
import { encodeMessage } from "../../../server/osc/replies.ts";
import { seededRandom } from "../../../tools/testing/random.ts";

/** What `make` gives, as bytes, or its error's message. */
function outcome(make: () => Uint8Array | DataView): unknown {
  try {
    const v = make();
    return [...new Uint8Array(v.buffer, v.byteOffset, v.byteLength)];
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const ADDRESSES = ["/control/A", "/reply/get/active", "/a", "/abc", "/\u00e4\u00f6", "/x\0y", ""];
const STRINGS = [
  "",
  "a",
  "abc",
  "abcd",
  '{"ok":true}',
  "h\u00e9llo \u{1f3b5}",
  "n\0l",
  "x".repeat(999),
];
const NUMBERS = [0, -0, 0.5, 0.3, -1, 1e-45, 3.4e38, 1e39, NaN, Infinity, 2 ** 31, -(2 ** 31), 7.9];

function arg(next: () => number): osc.OscArgOrArrayInput {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  switch (Math.floor(next() * 6)) {
    case 0:
      return pick(STRINGS);
    case 1:
      return { type: "string", value: pick(STRINGS) };
    case 2:
      return { type: "float", value: pick(NUMBERS) };
    case 3:
      return { type: "integer", value: pick(NUMBERS) };
    case 4:
      return { type: "float", value: next() * 2 - 1 };
    default:
      return pick<osc.OscArgOrArrayInput>([{ type: "true" }, { type: "double", value: 0.1 }, 5]);
  }
}

Deno.test("OSC encode: the direct pass gives osc-min's bytes for every message, and its error", () => {
  const next = seededRandom(30);
  for (let i = 0; i < 3000; i++) {
    const address = ADDRESSES[Math.floor(next() * ADDRESSES.length)]!;
    const args = Array.from({ length: Math.floor(next() * 5) }, () => arg(next));
    assert.deepEqual(
      outcome(() => encodeMessage(address, args)),
      outcome(() => osc.toBuffer({ address, args })),
      JSON.stringify({ address, args }),
    );
  }
});

Deno.test("OSC encode: feedback values and replies take the direct pass", () => {
  assert.notEqual(encodePlainMessage("/control/A", [{ type: "float", value: 0.5 }]), null);
  assert.notEqual(encodePlainMessage("/song/current/index", [{ type: "integer", value: 3 }]), null);
  assert.notEqual(encodePlainMessage("/reply/play", ['{"status":"ok"}']), null);
  assert.equal(encodePlainMessage("/x", [{ type: "true" }]), null, "other types go to osc-min");
});
