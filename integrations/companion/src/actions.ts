/**
 * Companion actions derived from the generated catalog: one per 6.0 action, its parameters as
 * options (dropdowns of Songs, Clips and Controls from the live state), velocity where the action
 * takes it, `SET_CONTROL` with absolute and relative steps (Stream Deck+ dials), and the edits that
 * make sense on a button (undo, redo).
 */
import type {
	CompanionActionDefinition,
	CompanionActionDefinitions,
	CompanionOptionValues,
	SomeCompanionActionInputField,
} from '@companion-module/base'
import { CATALOG, RULES, type CatalogAction, type CatalogParam } from './catalog.js'
import { clipChoices, controlChoices, songChoices, text } from './choices.js'
import type { ShowState } from './state.js'

/** What the actions need from the module. */
export interface ActionHost {
	state: ShowState
	/** Runs one action over HTTP; true when taken; a refusal is a log line, never a throw. */
	runAction(body: {
		name: string
		params: (string | number | boolean)[]
		base?: number
		velocity?: number
	}): Promise<boolean>
	/** Runs one edit over HTTP; a refusal is a log line. */
	runEdit(name: string): Promise<void>
}

/** The Companion action id of an edit: `project.undo` -> `PROJECT_UNDO`. */
export function editActionId(name: string): string {
	return name.replace(/\./g, '_').toUpperCase()
}

function paramField(action: CatalogAction, param: CatalogParam, state: ShowState): SomeCompanionActionInputField {
	const label = `${param.name}: ${param.description}`
	const none = param.optional ? [{ id: '', label: '(none: the default)' }] : []
	switch (param.kind) {
		case 'clipId': {
			const choices = [...none, ...clipChoices(state)]
			return { type: 'dropdown', id: param.name, label, choices, default: choices[0]?.id ?? '', allowCustom: true }
		}
		case 'songId': {
			const choices = [...none, ...songChoices(state)]
			return { type: 'dropdown', id: param.name, label, choices, default: choices[0]?.id ?? '', allowCustom: true }
		}
		case 'control':
			return { type: 'dropdown', id: param.name, label, choices: controlChoices(state), default: 'A' }
		case 'index': {
			// Keys count positions from 1: sent with base 1, the service shifts them down.
			const first = RULES.indexMin + (action.baseShifted ? RULES.base.shifted : RULES.base.default)
			const shown = action.baseShifted ? `${param.name}: position, from ${first}` : label
			return { type: 'number', id: param.name, label: shown, default: first, min: first, max: 9999 }
		}
		case 'fraction': {
			const { min, max } = RULES.fraction
			return { type: 'number', id: param.name, label, default: min, min, max, step: 0.01, range: true }
		}
		case 'number':
			return { type: 'number', id: param.name, label, default: 0, min: -1000, max: 1000, step: 0.01 }
		case 'boolean':
			return { type: 'checkbox', id: param.name, label, default: param.name === 'stopPlaying' }
		default:
			if (param.choices) {
				const choices = [...none, ...param.choices.map((c) => ({ id: c, label: c }))]
				return { type: 'dropdown', id: param.name, label, choices, default: choices[0]?.id ?? '' }
			}
			return { type: 'textinput', id: param.name, label, default: '' }
	}
}

/** The params array of one press: catalog order, stopping at the first optional left empty. */
export function paramsOf(action: CatalogAction, options: CompanionOptionValues): (string | number | boolean)[] {
	const params: (string | number | boolean)[] = []
	for (const param of action.params) {
		const value = options[param.name]
		if (value === undefined || value === null || value === '') {
			if (param.optional) break
			params.push('')
			continue
		}
		params.push(typeof value === 'object' ? JSON.stringify(value) : value)
	}
	return params
}

const SET_CONTROL_MODES = [
	{ id: 'set', label: 'Set to the value' },
	{ id: 'increase', label: 'Increase by the step' },
	{ id: 'decrease', label: 'Decrease by the step' },
]

function setControlDefinition(action: CatalogAction, host: ActionHost): CompanionActionDefinition {
	return {
		name: `${action.name}: ${action.description}`,
		description: `Absolute (set) or relative (a step up or down, clamped to ${RULES.fraction.min.toFixed(1)}-${RULES.fraction.max.toFixed(1)}): put the relative ones on a dial`,
		options: [
			{ type: 'dropdown', id: 'controlID', label: 'Control', choices: controlChoices(host.state), default: 'A' },
			{ type: 'dropdown', id: 'mode', label: 'Mode', choices: SET_CONTROL_MODES, default: 'set' },
			{ type: 'number', id: 'value', label: 'Value', default: 1, min: -1000, max: 1000, step: 0.01 },
			{ type: 'number', id: 'step', label: 'Step', default: 0.05, min: 0, max: RULES.fraction.max, step: 0.01 },
		],
		callback: async ({ options }) => {
			const letter = (text(options.controlID) || 'A').toUpperCase()
			const targets = host.state.controlTargets
			const live = () => host.state.controlValue(letter)
			let value = Number(options.value)
			if (options.mode !== 'set') {
				// From where the Control is heading: dial ticks faster than the round trip add up.
				const step = Number(options.step) * (options.mode === 'decrease' ? -1 : 1)
				const { min, max } = RULES.fraction
				value = Math.min(max, Math.max(min, targets.from(letter, live()) + step))
				value = Math.round(value * 10000) / 10000
			}
			await targets.set(letter, value, live, async (v) => host.runAction({ name: action.name, params: [letter, v] }))
		},
	}
}

function actionDefinition(action: CatalogAction, host: ActionHost): CompanionActionDefinition {
	if (action.name === 'SET_CONTROL') return setControlDefinition(action, host)
	const options = action.params.map((p) => paramField(action, p, host.state))
	if (action.velocity) {
		const { min, max } = RULES.velocity
		options.push({
			type: 'number',
			id: 'velocity',
			label: `Velocity (${min}-${max})`,
			default: RULES.velocity.default,
			min,
			max,
		})
	}
	return {
		name: `${action.name}: ${action.description}`,
		sortName: `${action.group} ${action.name}`,
		options,
		callback: async (event) => {
			const params = paramsOf(action, event.options)
			await host.runAction({
				name: action.name,
				params,
				...(action.baseShifted ? { base: RULES.base.shifted } : {}),
				...(action.velocity ? { velocity: Number(event.options.velocity ?? RULES.velocity.default) } : {}),
			})
		},
	}
}

/** Every action: the catalog's and the button edits. */
export function actionDefinitions(host: ActionHost): CompanionActionDefinitions {
	const defs: CompanionActionDefinitions = {}
	for (const action of CATALOG.actions) defs[action.name] = actionDefinition(action, host)
	for (const edit of CATALOG.edits) {
		defs[editActionId(edit.name)] = {
			name: `Edit ${edit.name}: ${edit.summary}`,
			sortName: `edit ${edit.name}`,
			options: [],
			callback: async () => host.runEdit(edit.name),
		}
	}
	return defs
}
