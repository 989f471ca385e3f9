/**
 * Feedbacks: Clip playing/paused/armed, Song active, recording, muted, full screen, connection;
 * the Clip's thumbnail with its play state drawn over it (advanced, a PNG of the key's size); a
 * Control's value as a bar (advanced); the output's live picture (advanced, polled only while a
 * key shows it).
 */
import {
	combineRgb,
	type CompanionFeedbackDefinitions,
	type SomeCompanionFeedbackInputField,
} from '@companion-module/base'
import { clipChoices, controlChoices, songChoices, text } from './choices.js'
import { barKey, type KeyState, previewKey, STATE_COLOURS } from './images.js'
import { type OutputPreview, PREVIEW_INTERVAL } from './preview.js'
import type { PNG } from 'pngjs'
import type { ShowState } from './state.js'

/** What the feedbacks need from the module. */
export interface FeedbackHost {
	state: ShowState
	isConnected(): boolean
	/** The Clip's thumbnail as a PNG of `size` with the play/pause glyph of `overlay`, or null. */
	thumbnail(clipID: string, size: number, overlay: 'play' | 'pause' | 'none'): Promise<Buffer | null>
	/** Composes the key image (the module keeps the last ones by Clip, size and state). */
	thumbnailKey(
		clipID: string,
		thumbnail: Buffer | null,
		width: number,
		height: number,
		state: KeyState,
	): Promise<Buffer | null>
	/** The output's picture, polled while some key shows it. */
	preview: OutputPreview<PNG>
}

/** The key state of a Clip: playing, paused, armed (selected: plays on PLAY_IN) or stopped. */
export function keyState(state: ShowState, clipID: string): KeyState {
	const play = state.clipState(clipID)
	if (play !== 'stopped') return play
	return state.playstate?.selectedClipID === clipID ? 'armed' : 'stopped'
}

/** The `state` option of a feedback: the first of `states` is the default. */
function stateField(states: [string, string][]): SomeCompanionFeedbackInputField {
	return {
		type: 'dropdown',
		id: 'state',
		label: 'State',
		default: states[0][0],
		choices: states.map(([id, label]) => ({ id, label })),
	}
}

const WHITE = combineRgb(255, 255, 255)
const rgb = (c: readonly number[]): number => combineRgb(c[0], c[1], c[2])

/** Every feedback. */
export function feedbackDefinitions(host: FeedbackHost): CompanionFeedbackDefinitions {
	const clips = clipChoices(host.state)
	const clipField = {
		type: 'dropdown' as const,
		id: 'clipID',
		label: 'Clip',
		choices: clips,
		default: clips[0]?.id ?? '',
		allowCustom: true,
	}
	const songs = songChoices(host.state)
	return {
		clip_state: {
			type: 'boolean',
			name: 'Clip playing / paused / armed',
			description: 'Armed: the selected Clip, the one PLAY_IN starts',
			defaultStyle: { bgcolor: rgb(STATE_COLOURS.playing), color: WHITE },
			options: [
				clipField,
				stateField([
					['playing', 'Playing'],
					['paused', 'Paused'],
					['armed', 'Armed (selected)'],
					['stopped', 'Stopped'],
				]),
			],
			callback: ({ options }) => keyState(host.state, text(options.clipID)) === options.state,
		},
		song_active: {
			type: 'boolean',
			name: 'Song active',
			defaultStyle: { bgcolor: rgb(STATE_COLOURS.armed), color: WHITE },
			options: [
				{
					type: 'dropdown',
					id: 'songID',
					label: 'Song',
					choices: songs,
					default: songs[0]?.id ?? '',
					allowCustom: true,
				},
			],
			callback: ({ options }) => host.state.playstate?.activeSongID === options.songID,
		},
		recording: {
			type: 'boolean',
			name: 'Recording',
			defaultStyle: { bgcolor: combineRgb(204, 0, 0), color: WHITE },
			options: [
				stateField([
					['recording', 'Recording'],
					['armed', 'Armed (starts on the next trigger)'],
				]),
			],
			callback: ({ options }) => host.state.appState?.recording.state === options.state,
		},
		muted: {
			type: 'boolean',
			name: 'Output muted',
			defaultStyle: { bgcolor: combineRgb(204, 0, 0), color: WHITE },
			options: [],
			callback: () => host.state.appState?.muted === true,
		},
		fullscreen: {
			type: 'boolean',
			name: 'Output full screen',
			defaultStyle: { bgcolor: rgb(STATE_COLOURS.playing), color: WHITE },
			options: [],
			callback: () => host.state.appState?.fullScreen === true,
		},
		connected: {
			type: 'boolean',
			name: 'Connected to Cueport',
			description: 'Invert it to light a key while the connection is down',
			defaultStyle: { bgcolor: rgb(STATE_COLOURS.playing), color: WHITE },
			showInvert: true,
			options: [],
			callback: () => host.isConnected(),
		},
		clip_thumbnail: {
			type: 'advanced',
			name: 'Clip thumbnail with its play state',
			description: "The Clip's picture at the key's size, framed green (playing), amber (paused) or blue (armed)",
			options: [clipField],
			callback: async (feedback) => {
				const clipID = text(feedback.options.clipID)
				const width = feedback.image?.width ?? 72
				const height = feedback.image?.height ?? 72
				const state = keyState(host.state, clipID)
				const overlay = state === 'playing' ? 'play' : state === 'paused' ? 'pause' : 'none'
				const picture = await host.thumbnail(clipID, Math.min(width, height), overlay)
				const key = await host.thumbnailKey(clipID, picture, width, height, state)
				return key ? { png64: key.toString('base64') } : {}
			},
		},
		output_preview: {
			type: 'advanced',
			name: "Output preview (the audience's picture)",
			description:
				'What the output shows now, fitted on the key and drawn again at the interval; fetched from Cueport only while a key shows it',
			options: [
				{
					type: 'number',
					id: 'interval',
					label: 'Refresh every (ms)',
					default: PREVIEW_INTERVAL.default,
					min: PREVIEW_INTERVAL.min,
					max: PREVIEW_INTERVAL.max,
				},
			],
			callback: (feedback) => {
				const width = feedback.image?.width ?? 72
				const height = feedback.image?.height ?? 72
				const interval = Number(feedback.options.interval ?? PREVIEW_INTERVAL.default)
				const { picture, refusal } = host.preview.use(feedback.id, interval, width, height)
				if (picture) return { png64: previewKey(picture, width, height).toString('base64') }
				return refusal ? { text: 'NO PREVIEW', color: WHITE } : {}
			},
			unsubscribe: (feedback) => host.preview.release(feedback.id),
		},
		control_bar: {
			type: 'advanced',
			name: "Control's value as a bar",
			options: [
				{ type: 'dropdown', id: 'controlID', label: 'Control', choices: controlChoices(host.state), default: 'A' },
				{ type: 'colorpicker', id: 'color', label: 'Bar colour', default: combineRgb(0, 204, 68) },
			],
			callback: (feedback) => {
				const width = feedback.image?.width ?? 72
				const height = feedback.image?.height ?? 72
				const colour = Number(feedback.options.color ?? combineRgb(0, 204, 68))
				const bar = [(colour >> 16) & 255, (colour >> 8) & 255, colour & 255]
				const value = host.state.controlValue(text(feedback.options.controlID) || 'A')
				return { png64: barKey(value, width, height, bar).toString('base64') }
			},
		},
	}
}
