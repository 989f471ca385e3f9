/**
 * A preset parameter's default written back into its ISF code: for an isf
 * preset the parameters are the header's `INPUTS` (`parameters.ts`), so the
 * editor window's controls change the input's `DEFAULT` in the code, and the
 * edit is the ordinary `preset.update` of that code. Microsoft's
 * `jsonc-parser` (already the header's reader) rewrites the one value and
 * keeps the rest of the header's text, spacing and order as written.
 * @module
 */
import { applyEdits, findNodeAtLocation, modify, parseTree } from "jsonc-parser";
import type { PresetParameter } from "../../protocol/model.ts";
import { type IsfInput, parseHeader, splitHeader } from "./header.ts";
import { inputParameters } from "./parameters.ts";
import { describeProblem } from "./problems.ts";

/**
 * `code` with the parameter `name`'s default set to `value` (of the
 * parameter's type: a number, a boolean, `#rrggbb`, an enum's option).
 * @throws {Error} when the header cannot be read, names no such parameter, or
 * the value is not of its type
 */
export function withParameterDefault(
  code: string,
  name: string,
  value: PresetParameter["default"],
): string {
  const split = splitHeader(code);
  if (!("json" in split)) throw new Error(describeProblem(split));
  const header = parseHeader(code, split);
  if (Array.isArray(header)) throw new Error(header.map(describeProblem).join("; "));
  const index = header.INPUTS.findIndex((input) =>
    inputParameters(input).some((p) => p.name === name)
  );
  const input = header.INPUTS[index];
  if (!input) throw new Error(`The shader's header declares no parameter "${name}"`);
  const path = ["INPUTS", index, "DEFAULT"];
  const next = isfDefault(input, name, value);
  const node = findNodeAtLocation(parseTree(split.json)!, path);
  // A DEFAULT written is replaced in place (an array on one line, as ISF files write it);
  // one left out is added as a new property.
  const json = node
    ? split.json.slice(0, node.offset) + JSON.stringify(next).replaceAll(",", ", ") +
      split.json.slice(node.offset + node.length)
    : applyEdits(
      split.json,
      modify(split.json, path, next, { formattingOptions: { insertSpaces: true, tabSize: 2 } }),
    );
  return code.slice(0, split.jsonStart) + json + code.slice(split.jsonStart + split.json.length);
}

/** The input's `DEFAULT` for the parameter `name` set to `value`. */
function isfDefault(input: IsfInput, name: string, value: PresetParameter["default"]): unknown {
  const parameters = inputParameters(input);
  const parameter = parameters.find((p) => p.name === name)!;
  const fail = () => new Error(`${JSON.stringify(value)} is not a ${parameter.type} for "${name}"`);
  switch (parameter.type) {
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) throw fail();
      if (input.TYPE !== "point2D") return input.TYPE === "long" ? Math.round(value) : value;
      return parameters.map((p) => p.name === name ? value : p.default);
    }
    case "boolean":
      if (typeof value !== "boolean") throw fail();
      return value;
    case "enum": {
      const index = parameter.options?.indexOf(String(value)) ?? -1;
      if (index < 0 || !input.VALUES) throw fail();
      return input.VALUES[index];
    }
    case "color": {
      const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(String(value));
      if (!m) throw fail();
      const alpha = Array.isArray(input.DEFAULT) && typeof input.DEFAULT[3] === "number"
        ? input.DEFAULT[3]
        : 1;
      return [...m.slice(1).map((h) => Math.round(parseInt(h, 16) / 255 * 1e4) / 1e4), alpha];
    }
  }
}
