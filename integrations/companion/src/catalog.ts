/**
 * The action catalog of Cueport 6.0, generated at build time from the service's own declaration
 * (`deno task companion:catalog` writes catalog.json; a test fails when it is stale).
 */
import data from './catalog.json' with { type: 'json' }

/** One parameter of an action: `kind` picks the Companion input. */
export interface CatalogParam {
	name: string
	kind: string
	optional: boolean
	description: string
	choices?: string[]
}

/** One action of the catalog. */
export interface CatalogAction {
	name: string
	group: string
	description: string
	params: CatalogParam[]
	velocity: boolean
	baseShifted: boolean
}

/** One edit that makes sense on a button (undo, redo). */
export interface CatalogEdit {
	name: string
	summary: string
}

/** The action rules the inputs take (`protocol/action_rules.ts`): the module repeats none of them. */
export interface CatalogRules {
	/** A trigger's velocity: its range and the default of a request without one. */
	velocity: { min: number; max: number; default: number }
	/** `base`: its values, its default, and the one that counts positions from 1. */
	base: { values: number[]; default: number; shifted: number }
	/** A `fraction` param's range. */
	fraction: { min: number; max: number }
	/** The least `index` param (after the `base` shift). */
	indexMin: number
}

/** The generated table. */
export const CATALOG: {
	actions: CatalogAction[]
	edits: CatalogEdit[]
	/** The range of a picture's size the service takes (`protocol/pictures.ts`). */
	pictureSize: { min: number; max: number }
	/** The action rules, from their one declaration. */
	rules: CatalogRules
} = data

/** The action rules (the catalog's `rules`). */
export const RULES: CatalogRules = CATALOG.rules
