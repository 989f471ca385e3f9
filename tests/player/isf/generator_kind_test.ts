/**
 * The generator kind (issue 45): `isfKindOf` answers `generator` for a header with no image
 * input and no audio input (with audio and no image it stays a visualizer); a generator's
 * shader may read audio but declares no image; a visualizer that reads no audio is taken.
 */
import assert from "node:assert/strict";
import { isfKindOf, parseIsf } from "../../../player/isf/mod.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

const header = (inputs: string) =>
  `/*{ "INPUTS": [${inputs}] }*/
void main() {
  gl_FragColor = vec4(isf_FragNormCoord, 0.0, 1.0);
}
`;
const AUDIO = '{ "NAME": "wave", "TYPE": "audio" }';
const LEVEL = '{ "NAME": "level", "TYPE": "float", "DEFAULT": 0.5 }';

Deno.test("isfKindOf() answers generator without an image input, visualizer with audio, else effect", () => {
  assert.equal(isfKindOf(header("")), "generator");
  assert.equal(isfKindOf(header(LEVEL)), "generator");
  assert.equal(isfKindOf(header(AUDIO)), "visualizer", "audio and no image stays a visualizer");
  assert.equal(isfKindOf(INVERT), "effect");
});

Deno.test("parseIsf() takes a generator without an image (with audio too), refuses one with an image", () => {
  const plain = parseIsf(header(LEVEL), "generator");
  assert.ok(plain.ok, JSON.stringify(plain));
  assert.deepEqual(plain.program.samplers, []);
  const withAudio = parseIsf(header(`${AUDIO}, ${LEVEL}`), "generator");
  assert.ok(withAudio.ok, JSON.stringify(withAudio));
  const image = parseIsf(INVERT, "generator");
  assert.ok(!image.ok);
  assert.match(image.problems[0]!.message, /a generator's shader draws without a picture/);
});

Deno.test("parseIsf() takes a visualizer that reads no audio (it draws without it)", () => {
  for (const code of [header(LEVEL), INVERT]) {
    const result = parseIsf(code, "visualizer");
    assert.ok(result.ok, JSON.stringify(result));
  }
});
