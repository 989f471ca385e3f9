/**
 * Presets a user drags onto a page: the Clip triggers of the active Song (thumbnail and play state
 * on the key), transport (with the output's live picture), Controls (a dial on Stream Deck+), song
 * navigation.
 */
import {
	combineRgb,
	type CompanionPresetDefinitions,
	type CompanionPresetSection,
	type CompanionSimplePresetDefinition,
} from '@companion-module/base'
import { editActionId } from './actions.js'
import { RULES } from './catalog.js'
import { STATE_COLOURS } from './images.js'
import { PREVIEW_INTERVAL } from './preview.js'
import type { ShowState } from './state.js'

const WHITE = combineRgb(255, 255, 255)
const BLACK = combineRgb(0, 0, 0)
const RED = combineRgb(204, 0, 0)
const GREEN = combineRgb(STATE_COLOURS.playing[0], STATE_COLOURS.playing[1], STATE_COLOURS.playing[2])
const BLUE = combineRgb(STATE_COLOURS.armed[0], STATE_COLOURS.armed[1], STATE_COLOURS.armed[2])

type Preset = CompanionSimplePresetDefinition

function button(
	name: string,
	text: string,
	down: { actionId: string; options: Record<string, any> }[],
	feedbacks: Preset['feedbacks'] = [],
): Preset {
	return {
		type: 'simple',
		name,
		style: { text, size: 'auto', color: WHITE, bgcolor: BLACK },
		steps: [{ down, up: [] }],
		feedbacks,
	}
}

/** Presets and their sections, for the state now; `label` is the connection's label (for variables). */
export function presetDefinitions(
	state: ShowState,
	label: string,
): { structure: CompanionPresetSection[]; presets: CompanionPresetDefinitions } {
	const presets: CompanionPresetDefinitions = {}
	const v = (name: string) => `$(${label}:${name})`

	const clipIds: string[] = []
	for (const clip of state.clipsOf(state.playstate?.activeSongID)) {
		const id = `clip_${clip.clipID}`
		clipIds.push(id)
		presets[id] = {
			...button(
				clip.name,
				clip.name,
				[
					{
						actionId: 'TRIGGER_CLIP_IN',
						options: { clipID: clip.clipID, activateSong: false, velocity: RULES.velocity.default },
					},
				],
				[{ feedbackId: 'clip_thumbnail', options: { clipID: clip.clipID } }],
			),
			style: { text: clip.name, size: '7', color: WHITE, bgcolor: BLACK, alignment: 'center:bottom' },
		}
	}

	const transport: Record<string, Preset> = {
		play: button('Play', 'PLAY', [{ actionId: 'PLAY_IN', options: {} }]),
		stop: button('Stop', 'STOP', [{ actionId: 'STOP_IN', options: {} }]),
		pause: button('Pause / resume', 'PAUSE', [{ actionId: 'PAUSE_TOGGLE_IN', options: {} }]),
		stop_all: button('Stop all Clips', 'STOP ALL', [
			{ actionId: 'STOP_ALL_CLIPS_IN', options: { maybePlayBackground: false } },
		]),
		mute: button(
			'Mute',
			'MUTE',
			[{ actionId: 'MUTE_TOGGLE', options: {} }],
			[{ feedbackId: 'muted', options: {}, style: { bgcolor: RED, color: WHITE } }],
		),
		fullscreen: button(
			'Full screen',
			'FULL\\nSCREEN',
			[{ actionId: 'FULLSCREEN_TOGGLE', options: {} }],
			[{ feedbackId: 'fullscreen', options: {}, style: { bgcolor: GREEN, color: WHITE } }],
		),
		record: button(
			'Record',
			`REC\\n${v('recording_time')}`,
			[{ actionId: 'RECORD_TOGGLE', options: { mode: 'now' } }],
			[{ feedbackId: 'recording', options: { state: 'recording' }, style: { bgcolor: RED, color: WHITE } }],
		),
		undo: button('Undo the last edit', 'UNDO', [{ actionId: editActionId('project.undo'), options: {} }]),
		redo: button('Redo', 'REDO', [{ actionId: editActionId('project.redo'), options: {} }]),
		preview: {
			...button(
				'Output preview',
				'OUTPUT',
				[],
				[{ feedbackId: 'output_preview', options: { interval: PREVIEW_INTERVAL.default } }],
			),
			style: { text: 'OUTPUT', size: '7', color: WHITE, bgcolor: BLACK, alignment: 'center:bottom' },
		},
		connection: button(
			'Connection',
			`${v('project_name')}`,
			[],
			[{ feedbackId: 'connected', options: {}, style: { bgcolor: RED, color: WHITE }, isInverted: true }],
		),
	}
	for (const [id, p] of Object.entries(transport)) presets[`transport_${id}`] = p

	const controlIds: string[] = []
	for (const control of state.project?.controls ?? []) {
		if (!control.name) continue
		const letter = control.controlID
		const id = `control_${letter}`
		const set = (mode: string) => ({
			actionId: 'SET_CONTROL',
			options: { controlID: letter, mode, value: 0, step: 0.05 },
		})
		controlIds.push(id)
		presets[id] = {
			type: 'simple',
			name: `Control ${letter}: ${control.name} (dial)`,
			style: { text: `${letter}\\n${v(`control_${letter.toLowerCase()}`)}`, size: '14', color: WHITE, bgcolor: BLACK },
			steps: [{ down: [set('set')], up: [], rotate_left: [set('decrease')], rotate_right: [set('increase')] }],
			feedbacks: [{ feedbackId: 'control_bar', options: { controlID: letter, color: GREEN } }],
		}
	}

	const songIds = ['song_prev', 'song_title', 'song_next', 'song_play_next']
	presets.song_prev = button('Previous Song', '<< SONG', [{ actionId: 'PREV_SONG_IN', options: { noStop: false } }])
	presets.song_next = button('Next Song', 'SONG >>', [{ actionId: 'NEXT_SONG_IN', options: { noStop: false } }])
	presets.song_play_next = button('Play next Song', 'PLAY NEXT', [{ actionId: 'PLAY_NEXT_SONG_IN', options: {} }])
	presets.song_title = button('Active Song', `${v('song_index')}. ${v('song_title')}\\n${v('song_remaining')}`, [])
	for (const song of state.songs()) {
		const id = `song_${song.songID}`
		songIds.push(id)
		presets[id] = button(
			song.title,
			song.title,
			[{ actionId: 'SONG_SELECT_BY_ID', options: { songID: song.songID, stopPlaying: true } }],
			[{ feedbackId: 'song_active', options: { songID: song.songID }, style: { bgcolor: BLUE, color: WHITE } }],
		)
	}

	const structure: CompanionPresetSection[] = [
		{ id: 'clips', name: 'Clips of the active Song', definitions: clipIds },
		{ id: 'transport', name: 'Transport', definitions: Object.keys(transport).map((k) => `transport_${k}`) },
		{ id: 'controls', name: 'Controls', definitions: controlIds },
		{ id: 'songs', name: 'Songs', definitions: songIds },
	]
	return { structure, presets }
}
