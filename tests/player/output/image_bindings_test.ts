/**
 * `renderInputs()`: an Effect's bound image inputs as the page reads them, and its preset's
 * IMPORTED images by URL; what cannot be read (a video file, an image the preset lacks) is left
 * out, so the page binds transparent black.
 */
import assert from "node:assert/strict";
import type { Effect, MediaFile, Preset, PresetImage } from "../../../protocol/model.ts";
import { renderInputs } from "../../../player/output/image_bindings.ts";
import { prepareIsf } from "../../../player/isf/mod.ts";

const CODE = `/*{
  "INPUTS": [
    {"NAME": "inputImage", "TYPE": "image"},
    {"NAME": "a", "TYPE": "image"}, {"NAME": "b", "TYPE": "image"}, {"NAME": "c", "TYPE": "image"},
    {"NAME": "d", "TYPE": "image"}, {"NAME": "e", "TYPE": "image"}, {"NAME": "f", "TYPE": "image"}
  ],
  "IMPORTED": {"e": {"PATH": "e.png"}, "grain": {"PATH": "grain.png"}, "lost": {"PATH": "l.png"}}
}*/
void main() { gl_FragColor = IMG_THIS_PIXEL(grain) * IMG_THIS_PIXEL(lost); }
`;

const image = (name: string, hex: string): PresetImage => ({
  name,
  file: `${name}.png`,
  sha256: hex.repeat(64),
  mimeType: "image/png",
  size: 10,
  width: 2,
  height: 2,
});

Deno.test("renderInputs() resolves each binding and the IMPORTED images for the page", () => {
  const prepared = prepareIsf(CODE, "effect");
  assert.ok(prepared.ok, JSON.stringify(prepared));
  const preset = {
    id: "fx-user-1",
    images: [image("e", "a"), image("grain", "b")],
  } as unknown as Preset;
  const effect = {
    id: "fx-1",
    inputs: {
      a: { from: "clip", clipID: "red" },
      b: { from: "below" },
      c: { from: "camera", cameraId: "video0" },
      d: { from: "file", fileId: "f-still" },
      e: { from: "imported" },
      f: { from: "file", fileId: "f-video" },
    },
  } as unknown as Effect;
  const files = [
    { id: "f-still", kind: "image" },
    { id: "f-video", kind: "video" },
  ] as unknown as MediaFile[];
  const inputs = renderInputs(effect, preset, prepared.program, { id: "show", files });
  assert.deepEqual(inputs, {
    a: { from: "clip", clipId: "red" },
    b: { from: "below" },
    c: { from: "camera", cameraId: "video0" },
    d: { from: "url", url: "media/show/f-still" },
    e: { from: "url", url: `preset-images/${"a".repeat(64)}.png` },
    grain: { from: "url", url: `preset-images/${"b".repeat(64)}.png` },
  });
  // Nothing bound and no image stored: no inputs at all.
  const bare = renderInputs(
    { id: "fx-2" } as Effect,
    { id: "p" } as Preset,
    prepared.program,
    undefined,
  );
  assert.equal(bare, undefined);
  // A transition's own input of an IMPORTED image's name reads it without a binding.
  const transition = { ...preset, kind: "transition" } as Preset;
  const crossing = renderInputs({ id: "transition" } as Effect, transition, prepared.program, {
    id: "show",
    files,
  });
  assert.deepEqual(crossing?.e, { from: "url", url: `preset-images/${"a".repeat(64)}.png` });
  assert.equal(crossing?.a, undefined);
});
