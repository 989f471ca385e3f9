/** Handlers of the Effect, Visualizer and preset edits. @module */
import { type Preset, Preset as PresetSchema, type PresetParameter } from "../../protocol/model.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { Refusal } from "../errors.ts";
import { ISF_PRESET_TYPE, type PresetValidateResult } from "../../protocol/edits/presets.ts";
import { describeProblem, hasVertexCode, isfKindOf } from "../isf/mod.ts";
import {
  type EditDraft,
  type EditHandler,
  type EditParams,
  isTaken,
  missing,
  newId,
} from "./draft.ts";
import { importName, readShaderFile, readVertexFileBeside } from "./preset_import.ts";
import { INPUT_HANDLERS, storeImages } from "./input_edits.ts";
import { readImportedImages } from "../output/imported_images.ts";
import { unlinkGenerators, unlinkTransitions } from "./preset_links.ts";
import { quarantineAfterEdit } from "./preset_quarantine.ts";
import {
  checkIsfPreset,
  isfProblemTexts,
  isfWarningTexts,
  paramProblems,
  presetProblems,
} from "./preset_rules.ts";

/** The kinds of look with instances in a Project (`effect.*`, `visualizer.*`). */
type Kind = Extract<Preset["kind"], "effect" | "visualizer">;

/** An instance of a look in a Project: an Effect or a Visualizer. */
type Instance =
  | EditDraft["project"]["effects"][number]
  | EditDraft["project"]["visualizers"][number];

function refuseProblems(what: string, problems: string[]): void {
  if (problems.length > 0) throw new Refusal(`${what}: ${problems.join("; ")}`);
}

/** Problems named in a refusal's message; `data.problems` has them all. */
const MESSAGE_PROBLEMS = 5;

/**
 * `preset` with the parameters its isf code declares (any other type as it
 * is). Refuses code with problems (INVALID_CODE, at lines and columns) and
 * `given` parameters that are not the header's.
 */
async function withCheckedCode(
  preset: Preset,
  given: PresetParameter[] | undefined,
  codeField = "params.code",
  warnings: string[] = [],
): Promise<Preset> {
  const check = await checkIsfPreset(preset, given);
  if (!check) return preset;
  warnings.push(...isfWarningTexts(check));
  const problems = check.codeProblems;
  // Problems of the vertex shader name its field (they come alone: it is checked first).
  if (problems[0]?.field === "vertexCode") {
    codeField = codeField === "params.code" ? "params.vertexCode" : `${codeField} (.vs)`;
  }
  if (problems.length > 0) {
    const named = problems.slice(0, MESSAGE_PROBLEMS).map(describeProblem).join("; ");
    const more = problems.length > MESSAGE_PROBLEMS
      ? ` (and ${problems.length - MESSAGE_PROBLEMS} more)`
      : "";
    throw new Refusal(`Invalid ${codeField}: ${named}${more}`, RpcErrorCode.INVALID_CODE, {
      field: codeField,
      problems,
    });
  }
  if (check.parametersProblem) {
    throw new Refusal(
      `Invalid params.parameters: ${check.parametersProblem}`,
      RpcErrorCode.INVALID_PARAMS,
    );
  }
  return { ...preset, parameters: check.parameters };
}

/** `preset` without a blank `vertexCode` (none: the default quad; `""` removes one). */
function withoutBlankVertex(preset: Preset): Preset {
  if (preset.vertexCode === undefined || hasVertexCode(preset.vertexCode)) return preset;
  const { vertexCode: _, ...rest } = preset;
  return rest;
}

function findPreset(d: EditDraft, kind: Kind, id: string): Preset {
  const preset = [...d.builtInPresets, ...d.presets].find((p) => p.id === id && p.kind === kind);
  if (!preset) throw missing(`The ${kind} preset "${id}" does not exist`);
  return preset;
}

/** The edits of one kind of look (`effect` or `visualizer`) over the lookups they share. */
class LookEdits {
  readonly #kind: Kind;
  /** How messages name the kind: "Effect" or "Visualizer". */
  readonly #label: string;
  /** The param, and `created` key, naming an instance: `effectID` or `visualizerID`. */
  readonly #ref: string;

  constructor(kind: Kind) {
    this.#kind = kind;
    this.#label = kind === "effect" ? "Effect" : "Visualizer";
    this.#ref = `${kind}ID`;
  }

  /** The edits by edit name (`effect.add`, ...). */
  handlers(): Record<string, EditHandler> {
    const k = this.#kind;
    return {
      [`${k}.add`]: (d, p) => this.add(d, p),
      [`${k}.update`]: (d, p) => this.update(d, p),
      [`${k}.remove`]: (d, p) => this.remove(d, p),
      [`${k}.copy`]: (d, p) => this.copy(d, p),
    };
  }

  /** The Project's instances of this kind. */
  #list(d: EditDraft): Instance[] {
    return this.#kind === "effect" ? d.project.effects : d.project.visualizers;
  }

  /** Adds an instance (of this kind: the caller built it from this kind's fields). */
  #push(d: EditDraft, item: Record<string, unknown>): void {
    (this.#list(d) as unknown[]).push(item);
  }

  /** The instance `id` of this kind, or NOT_FOUND. */
  #find(d: EditDraft, id: string): Instance {
    const item = this.#list(d).find((x) => x.id === id);
    if (!item) throw missing(`${this.#label} "${id}" does not exist`);
    return item;
  }

  /** A new instance id (`fx-...` or `viz-...`). */
  #newId(d: EditDraft): string {
    return newId(this.#kind === "effect" ? "fx" : "viz", (x) => isTaken(d.project, x));
  }

  /** `<kind>.add`: an instance from a preset, its parameters' defaults under `params`. */
  add(d: EditDraft, p: EditParams): string {
    const preset = findPreset(d, this.#kind, p.presetID);
    refuseProblems(`Invalid params`, paramProblems(preset, p.params ?? {}));
    const defaults = Object.fromEntries(preset.parameters.map((x) => [x.name, x.default]));
    const id = this.#newId(d);
    this.#push(d, {
      id,
      name: p.name ?? preset.name,
      [this.#kind === "effect" ? "type" : "engine"]: preset.type,
      presetId: preset.id,
      enabled: true,
      params: { ...defaults, ...p.params },
    });
    d.created[this.#ref] = id;
    return `${this.#label} "${id}" added from preset "${preset.id}"`;
  }

  /** `<kind>.update`: its params (checked against its preset), name or enabled. */
  update(d: EditDraft, p: EditParams): string {
    const item = this.#find(d, p[this.#ref]);
    if (p.params) {
      const preset = item.presetId
        ? [...d.builtInPresets, ...d.presets].find((x) => x.id === item.presetId)
        : undefined;
      if (preset) refuseProblems(`Invalid params`, paramProblems(preset, p.params));
      item.params = { ...item.params, ...p.params };
    }
    if (p.name !== undefined) item.name = p.name;
    if (p.enabled !== undefined) item.enabled = p.enabled;
    return `${this.#label} "${item.id}" updated`;
  }

  /** `<kind>.remove`: an Effect leaves the Clips that used it too. */
  remove(d: EditDraft, p: EditParams): string {
    const item = this.#find(d, p[this.#ref]);
    if (this.#kind === "effect") {
      d.project.effects = d.project.effects.filter((x) => x !== item);
      for (const clip of d.project.clips) {
        clip.options.effects = clip.options.effects.filter((id) => id !== item.id);
      }
    } else d.project.visualizers = d.project.visualizers.filter((x) => x !== item);
    return `${this.#label} "${item.id}" removed`;
  }

  /** `<kind>.copy`: a deep copy under a new id. */
  copy(d: EditDraft, p: EditParams): string {
    const item = this.#find(d, p[this.#ref]);
    const id = this.#newId(d);
    this.#push(d, { ...structuredClone(item), id, name: p.name ?? `${item.name} copy` });
    d.created[this.#ref] = id;
    return `${this.#label} "${item.id}" copied as "${id}"`;
  }
}

function userPreset(d: EditDraft, kind: Preset["kind"], id: string): Preset {
  const preset = d.presets.find((p) => p.id === id && p.kind === kind);
  if (preset) return preset;
  if (d.builtInPresets.some((p) => p.id === id && p.kind === kind)) {
    throw new Refusal(
      `Preset "${id}" is built in and cannot be changed: add a user preset from it instead`,
    );
  }
  throw missing(`The ${kind} preset "${id}" does not exist`);
}

/** The ids of user presets start with their kind's prefix. */
const ID_PREFIXES: Record<Preset["kind"], string> = {
  effect: "fx-user",
  visualizer: "viz-user",
  transition: "tr-user",
  generator: "gen-user",
};

const all = (d: EditDraft) => [...d.builtInPresets, ...d.presets];

/** Adds a user preset; `codeField` names where its code came from in a refusal. */
async function addPreset(d: EditDraft, p: EditParams, codeField?: string): Promise<string> {
  const id = newId(
    ID_PREFIXES[p.kind as Preset["kind"]],
    (x) => all(d).some((o) => o.id === x),
  );
  const parsed = withoutBlankVertex(
    PresetSchema.parse({ parameters: [], ...p, id, builtIn: false }),
  );
  const warnings: string[] = [];
  const preset = await withCheckedCode(parsed, p.parameters, codeField, warnings);
  refuseProblems("Invalid preset", presetProblems(preset, all(d)));
  d.presets.push(preset);
  d.created.presetID = id;
  const heard = warnings.length > 0 ? ` (warning: ${warnings.join("; ")})` : "";
  return `The ${p.kind} preset "${id}" added${heard}`;
}

/** Effect, Visualizer and preset edit handlers by name. */
export const FX_HANDLERS: Record<string, EditHandler> = {
  ...new LookEdits("effect").handlers(),
  ...new LookEdits("visualizer").handlers(),
  ...INPUT_HANDLERS,
  "preset.add": (d, p) => addPreset(d, p),
  "preset.import": async (d, p) => {
    const code = await readShaderFile(p.path);
    const vertexCode = await readVertexFileBeside(p.path);
    const kind = p.kind ?? isfKindOf(code);
    const name = importName(p.path, p.name, kind, all(d));
    const images = await readImportedImages(code, p.path);
    const preset = {
      kind,
      name,
      type: ISF_PRESET_TYPE,
      code,
      ...(vertexCode ? { vertexCode } : {}),
    };
    const message = await addPreset(d, preset, "params.path");
    await storeImages(d, images);
    return message;
  },
  "preset.update": async (d, p) => {
    const preset = userPreset(d, p.kind, p.presetID);
    const next = await withCheckedCode(
      withoutBlankVertex(PresetSchema.parse({
        ...preset,
        ...Object.fromEntries(
          Object.entries(p).filter(([k, v]) => k !== "presetID" && v !== undefined),
        ),
      })),
      p.parameters,
    );
    refuseProblems("Invalid preset", presetProblems(next, all(d)));
    next.quarantine = quarantineAfterEdit(preset, next);
    d.presets[d.presets.indexOf(preset)] = next;
    return `The ${p.kind} preset "${preset.id}" updated`;
  },
  "preset.remove": (d, p) => {
    const preset = userPreset(d, p.kind, p.presetID);
    d.presets = d.presets.filter((x) => x !== preset);
    for (const item of [...d.project.effects, ...d.project.visualizers]) {
      if (item.presetId === preset.id) item.presetId = null;
    }
    unlinkTransitions(d.project, preset.id);
    unlinkGenerators(d.project, preset.id);
    return `The ${p.kind} preset "${preset.id}" removed`;
  },
  "preset.validate": async (d, p) => {
    const preset = { ...(p as Preset), id: "" };
    const check = await checkIsfPreset(preset, p.parameters);
    const problems = [
      ...(check ? isfProblemTexts(check) : []),
      ...presetProblems({ ...preset, parameters: check?.parameters ?? preset.parameters }, all(d)),
    ];
    const warnings = isfWarningTexts(check);
    const result: PresetValidateResult = { valid: problems.length === 0, problems };
    d.result = warnings.length > 0 ? { ...result, warnings } : result;
    return problems.length === 0
      ? "The preset is valid"
      : `The preset has ${problems.length} problem(s)`;
  },
};
