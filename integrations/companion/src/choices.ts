/** Dropdown choices filled from the live state: Songs, Clips, Controls. */
import type { DropdownChoice } from '@companion-module/base'
import type { ShowState } from './state.js'

/** The 26 Control letters. */
export const CONTROL_LETTERS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ']

/** Every Song, by title. */
export function songChoices(state: ShowState): DropdownChoice[] {
	return state.songs().map((s) => ({ id: s.songID, label: `${s.position + 1}. ${s.title}` }))
}

/** Every Clip, grouped by Song in show order. */
export function clipChoices(state: ShowState): DropdownChoice[] {
	return state
		.songs()
		.flatMap((s) => state.clipsOf(s.songID).map((c) => ({ id: c.clipID, label: `${s.title} / ${c.name}` })))
}

/** The 26 Controls, with their names where they have one. */
export function controlChoices(state: ShowState): DropdownChoice[] {
	const names = new Map((state.project?.controls ?? []).map((c) => [c.controlID, c.name]))
	return CONTROL_LETTERS.map((l) => ({ id: l, label: names.get(l) ? `${l}: ${names.get(l)}` : l }))
}

/** An option's value as text ('' for anything that is not a string or a number). */
export function text(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : ''
}
