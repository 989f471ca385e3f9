/**
 * Generates `integrations/companion/src/catalog.json`: the module's table of actions and
 * button edits, derived from the one declaration of the catalog (`protocol/actions.ts` with
 * which actions take velocity and `base`, the edit catalog): it imports only `protocol/`. Run
 * `deno task companion:catalog`; `tests/integrations/companion/module_test.ts` fails when the
 * committed file is not what this produces.
 * @module
 */
import {
  ACTIONS,
  BASE_SHIFTED_ACTIONS,
  PARAM_SCHEMAS,
  type ParamKind,
  VELOCITY_ACTIONS,
} from "../../../protocol/actions.ts";
import { BASE, FRACTION, INDEX_MIN, VELOCITY } from "../../../protocol/action_rules.ts";
import { EDITS } from "../../../protocol/edits/mod.ts";
import { PICTURE_SIZE } from "../../../protocol/pictures.ts";

/** One parameter as the module offers it: `kind` picks the Companion input. */
export interface CatalogParam {
  name: string;
  kind: string;
  optional: boolean;
  description: string;
  /** The allowed values, for the kinds that are an enumeration. */
  choices?: string[];
}

/** One action of the catalog as the module reads it. */
export interface CatalogAction {
  name: string;
  group: string;
  description: string;
  params: CatalogParam[];
  velocity: boolean;
  baseShifted: boolean;
}

/** The action rules the module's inputs take (`protocol/action_rules.ts`), numbers it never repeats. */
export interface CatalogRules {
  /** A trigger's velocity: its range and the default of a request without one. */
  velocity: { min: number; max: number; default: number };
  /** `base`: its values, its default, and the one that counts positions from 1. */
  base: { values: number[]; default: number; shifted: number };
  /** A `fraction` param's range. */
  fraction: { min: number; max: number };
  /** The least `index` param (after the `base` shift). */
  indexMin: number;
}

/** The generated table. */
export interface Catalog {
  actions: CatalogAction[];
  edits: { name: string; summary: string }[];
  /** The range of a picture's size the service takes (the output preview's `size`). */
  pictureSize: { min: number; max: number };
  /** The action rules, from their one declaration. */
  rules: CatalogRules;
}

/** Edits that make sense on a button: no parameters, one press. */
const BUTTON_EDITS = new Set(["project.undo", "project.redo"]);

function choicesOf(kind: ParamKind): { choices?: string[] } {
  const options = (PARAM_SCHEMAS[kind] as { options?: unknown }).options;
  return Array.isArray(options) ? { choices: options.map(String) } : {};
}

/** The table, from the declarations. */
export function buildCatalog(): Catalog {
  return {
    actions: ACTIONS.map((a) => ({
      name: a.name,
      group: a.group,
      description: a.description,
      params: a.params.map((p) => ({
        name: p.name,
        kind: p.kind,
        optional: p.isOptional,
        description: p.description,
        ...choicesOf(p.kind),
      })),
      velocity: VELOCITY_ACTIONS.has(a.name),
      baseShifted: BASE_SHIFTED_ACTIONS.has(a.name),
    })),
    edits: EDITS.filter((e) => BUTTON_EDITS.has(e.name)).map((e) => ({
      name: e.name,
      summary: e.summary,
    })),
    pictureSize: { ...PICTURE_SIZE },
    rules: {
      velocity: { ...VELOCITY },
      base: { values: [...BASE.values], default: BASE.default, shifted: BASE.shifted },
      fraction: { ...FRACTION },
      indexMin: INDEX_MIN,
    },
  };
}

/** The file's text: stable JSON, one trailing newline. */
export function catalogText(): string {
  return JSON.stringify(buildCatalog(), null, "\t") + "\n";
}

/** Where the generated table lives. */
export const CATALOG_PATH = new URL("../src/catalog.json", import.meta.url);

if (import.meta.main) {
  await Deno.writeTextFile(CATALOG_PATH, catalogText());
  console.log(`wrote ${CATALOG_PATH.pathname}`);
}
