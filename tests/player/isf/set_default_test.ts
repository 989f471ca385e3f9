/**
 * The editor window's controls write a parameter's default into the ISF
 * header's DEFAULT: each parameter type, the rest of the code as written.
 */
import assert from "node:assert/strict";
import { withParameterDefault } from "../../../player/isf/set_default.ts";
import { isfHeaderParameters } from "../../../player/isf/mod.ts";
import { EVERY_INPUT, INVERT } from "../../../tools/testing/isf_shaders.ts";

const defaultOf = (code: string, name: string) =>
  isfHeaderParameters(code).find((p) => p.name === name)?.default;

Deno.test("withParameterDefault: each parameter type becomes its input's DEFAULT", () => {
  const cases: [string, string | number | boolean][] = [
    ["level", 1.25],
    ["invert", false],
    ["flash", true],
    ["mode", "Screen"],
    ["tint", "#00ff80"],
    ["center_x", 0.25],
    ["center_y", 0.75],
  ];
  for (const [name, value] of cases) {
    const code = withParameterDefault(EVERY_INPUT, name, value);
    assert.deepEqual(defaultOf(code, name), value, name);
    // Only the header changed: the GLSL is the same text.
    assert.equal(code.slice(code.indexOf("*/")), EVERY_INPUT.slice(EVERY_INPUT.indexOf("*/")));
  }
  const moved = withParameterDefault(EVERY_INPUT, "center_x", 0.25);
  assert.equal(defaultOf(moved, "center_y"), 0.5, "the other axis is kept");
  assert.match(withParameterDefault(EVERY_INPUT, "mode", "Screen"), /"DEFAULT": 2/);
  assert.match(withParameterDefault(EVERY_INPUT, "tint", "#00ff80"), /\[0, 1, 0\.502, 1\]/);
});

Deno.test("withParameterDefault: one value rewritten, the header's text kept", () => {
  const code = withParameterDefault(INVERT, "amount", 0.5);
  assert.equal(code, INVERT.replace(`"DEFAULT": 1.0`, `"DEFAULT": 0.5`));
});

Deno.test("withParameterDefault: an unknown parameter or a value of another type is refused", () => {
  assert.throws(() => withParameterDefault(INVERT, "gain", 1), /declares no parameter "gain"/);
  assert.throws(() => withParameterDefault(INVERT, "amount", "#ffffff"), /not a number/);
  assert.throws(() => withParameterDefault(EVERY_INPUT, "mode", "Overlay"), /not a enum/);
  assert.throws(() => withParameterDefault("void main() {}", "amount", 1), /header/);
});

Deno.test("withParameterDefault: an input without DEFAULT gets one", () => {
  const code = withParameterDefault(EVERY_INPUT, "flash", true);
  assert.match(code, /"NAME": "flash",\s*"TYPE": "event",\s*"DEFAULT": true/);
});
