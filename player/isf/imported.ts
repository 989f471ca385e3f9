/**
 * ISF's `IMPORTED` images in a shader's checks: each name a sampler the code reads with the
 * `IMG_*` functions (its `_<name>_imgSize` too), named once among the inputs and pass targets.
 * The images themselves are stored with the preset (`player/output/imported_images.ts`).
 * @module
 */
import {
  importedImages,
  type IsfHeader,
  MAX_IMPORTED_IMAGES,
  parseHeader,
  splitHeader,
} from "./header.ts";
import { ISF_BUILT_INS } from "./glsl.ts";
import { isReservedName } from "./reserved_names.ts";

/** The pictures a shader takes without a binding: the layer's, a transition's two. */
const OWN_IMAGES: ReadonlySet<string> = new Set(["inputImage", "startImage", "endImage"]);

/** The image inputs an Effect or Visualizer binds (`effect.set_input`): all but OWN_IMAGES. */
export function bindableInputs(header: IsfHeader): string[] {
  return header.INPUTS.filter((i) => i.TYPE === "image" && !OWN_IMAGES.has(i.NAME))
    .map((i) => i.NAME);
}

/** `bindableInputs` of ISF `code` (none when its header cannot be read). */
export function bindableInputsOf(code: string): string[] {
  const split = splitHeader(code);
  const header = "json" in split ? parseHeader(code, split) : [];
  return Array.isArray(header) ? [] : bindableInputs(header);
}

/**
 * The samplers the header's `IMPORTED` images add: each name but an image input's (an image
 * of an input's name is that input's picture when an Effect binds it `{"from": "imported"}`).
 */
export function importedSamplers(header: IsfHeader): string[] {
  const inputs = new Set(header.INPUTS.filter((i) => i.TYPE === "image").map((i) => i.NAME));
  return importedImages(header).map((i) => i.name).filter((name) => !inputs.has(name));
}

/**
 * What is wrong with the header's `IMPORTED`, at its path: more than MAX_IMPORTED_IMAGES, a
 * name taken by an input that is no image (`inputs`: all the names), a pass target or ISF, or
 * declared twice.
 */
export function importedProblems(
  header: IsfHeader,
  inputs: ReadonlySet<string>,
): { path: (string | number)[]; message: string }[] {
  const images = importedImages(header);
  if (images.length > MAX_IMPORTED_IMAGES) {
    return [{
      path: ["IMPORTED"],
      message:
        `IMPORTED: ${images.length} images, at most ${MAX_IMPORTED_IMAGES}: an image is a texture of the output's GPU`,
    }];
  }
  const targets = new Set(header.PASSES.flatMap((p) => p.TARGET ? [p.TARGET] : []));
  const bindable = new Set(bindableInputs(header));
  const seen = new Set<string>();
  const isArray = Array.isArray(header.IMPORTED);
  return images.flatMap(({ name }, i) => {
    const taken = inputs.has(name) && !bindable.has(name)
      ? "the name of an input that is no image the Effect binds"
      : targets.has(name)
      ? "a pass's TARGET"
      : ISF_BUILT_INS.includes(name) || isReservedName(name)
      ? "a name ISF declares"
      : seen.has(name)
      ? "declared twice"
      : null;
    seen.add(name);
    if (!taken) return [];
    const path = isArray ? ["IMPORTED", i] : ["IMPORTED", name];
    return [{ path, message: `IMPORTED.${isArray ? i : name}: "${name}" is ${taken}` }];
  });
}
