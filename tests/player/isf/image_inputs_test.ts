/**
 * The checks of several image inputs and `IMPORTED` images (issue 45): an effect or visualizer
 * takes any image input (a transition's two names stay a transition's), `IMPORTED` in ISF 2.0's
 * object form and ISF 1.0's array form gives the code a sampler for `IMG_*`, and a name taken
 * twice, a folder in a `PATH` or too many images are refused at their place.
 */
import assert from "node:assert/strict";
import { describeProblem, isfKindOf, parseIsf } from "../../../player/isf/mod.ts";
import { bindableInputsOf } from "../../../player/isf/imported.ts";

const MASK = `/*{
  "INPUTS": [
    {"NAME": "inputImage", "TYPE": "image"},
    {"NAME": "maskImage", "TYPE": "image"}
  ]
}*/
void main() {
  vec4 c = IMG_THIS_PIXEL(inputImage);
  gl_FragColor = c * IMG_NORM_PIXEL(maskImage, isf_FragNormCoord).r + 0.0 * IMG_SIZE(maskImage).x;
}
`;

const imported = (imported: string, body = "IMG_NORM_PIXEL(noiseTex, vec2(0.5))") =>
  `/*{
  "INPUTS": [{"NAME": "inputImage", "TYPE": "image"}],
  "IMPORTED": ${imported}
}*/
void main() {
  gl_FragColor = IMG_THIS_PIXEL(inputImage) * ${body};
}
`;

function problemsOf(code: string, kind = isfKindOf(code)): string[] {
  const result = parseIsf(code, kind);
  return result.ok ? [] : result.problems.map(describeProblem);
}

Deno.test("parseIsf() takes a second image input in an effect and a visualizer, not startImage", () => {
  const effect = parseIsf(MASK, "effect");
  assert.ok(effect.ok, JSON.stringify(effect));
  assert.deepEqual(effect.program.samplers, ["inputImage", "maskImage"]);
  assert.deepEqual(bindableInputsOf(MASK), ["maskImage"]);
  const audio = MASK.replace(
    '{"NAME": "maskImage", "TYPE": "image"}',
    '{"NAME": "maskImage", "TYPE": "image"}, {"NAME": "fft", "TYPE": "audioFFT"}',
  );
  assert.ok(parseIsf(audio, "visualizer").ok);
  // An effect whose only picture is another input (a gradient from a lookup image) is taken.
  const lookup = MASK.replace('{"NAME": "inputImage", "TYPE": "image"},', "")
    .replace("IMG_THIS_PIXEL(inputImage)", "vec4(1.0)");
  assert.deepEqual(problemsOf(lookup, "effect"), []);
  const start = MASK.replaceAll("maskImage", "startImage");
  const [first] = problemsOf(start, "effect");
  assert.match(
    first ?? "",
    /^line 4, column \d+: INPUTS\.1: "startImage" is a transition's picture/,
  );
});

Deno.test("parseIsf() takes IMPORTED in its object and array forms as samplers of IMG_*", () => {
  const object = parseIsf(imported('{"noiseTex": {"PATH": "noise2d.png"}}'), "effect");
  assert.ok(object.ok, JSON.stringify(object));
  assert.deepEqual(object.program.samplers, ["inputImage", "noiseTex"]);
  assert.match(object.program.fragment, /uniform sampler2D noiseTex;/);
  const array = parseIsf(imported('[{"NAME": "noiseTex", "PATH": "noise2d.png"}]'), "effect");
  assert.ok(array.ok, JSON.stringify(array));
  assert.deepEqual(array.program.samplers, ["inputImage", "noiseTex"]);
  // IMG_PIXEL and IMG_SIZE read its size.
  const sized = imported(
    '{"noiseTex": {"PATH": "n.png"}}',
    "IMG_PIXEL(noiseTex, IMG_SIZE(noiseTex) * 0.5)",
  );
  assert.deepEqual(problemsOf(sized), []);
  // Without IMPORTED, the same call names what is wrong.
  const [missing] = problemsOf(imported("{}"));
  assert.match(missing ?? "", /IMG_NORM_PIXEL: "noiseTex" is not an image or audio input/);
});

Deno.test("parseIsf() refuses an IMPORTED name taken, a PATH with a folder, and too many", () => {
  const taken = problemsOf(imported('{"inputImage": {"PATH": "a.png"}}'));
  assert.match(
    taken[0] ?? "",
    /^line 3, column \d+: IMPORTED\.inputImage: "inputImage" is the name of an input that is no image the Effect binds/,
  );
  // The name of an image input the Effect binds: that input's picture, one sampler.
  const own = MASK.replace('"INPUTS"', '"IMPORTED": {"maskImage": {"PATH": "m.png"}}, "INPUTS"');
  const shared = parseIsf(own, "effect");
  assert.ok(shared.ok, JSON.stringify(shared));
  assert.deepEqual(shared.program.samplers, ["inputImage", "maskImage"]);
  const twice = problemsOf(
    imported('[{"NAME": "noiseTex", "PATH": "a.png"}, {"NAME": "noiseTex", "PATH": "b.png"}]'),
  );
  assert.match(twice[0] ?? "", /IMPORTED\.1: "noiseTex" is declared twice/);
  const builtIn = problemsOf(imported('{"TIME": {"PATH": "a.png"}}'));
  assert.match(builtIn[0] ?? "", /"TIME" is a name ISF declares/);
  const folder = problemsOf(imported('{"noiseTex": {"PATH": "../secret.png"}}'));
  assert.match(folder[0] ?? "", /IMPORTED\.noiseTex\.PATH: must be a file name beside the \.fs/);
  const many = Object.fromEntries(
    Array.from({ length: 17 }, (_, i) => [`img${i}`, { PATH: `${i}.png` }]),
  );
  const tooMany = problemsOf(imported(JSON.stringify(many), "vec4(1.0)"));
  assert.match(tooMany[0] ?? "", /IMPORTED: 17 images, at most 16/);
});
