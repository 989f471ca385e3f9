/**
 * Variables: project, active Song title and index, position and remaining time of the Song and of
 * the selected Clip, each Control's value, output level, mute, recording time, connection.
 */
import type { CompanionVariableDefinitions, CompanionVariableValues } from '@companion-module/base'
import { CONTROL_LETTERS } from './choices.js'
import type { ShowState } from './state.js'

/** `m:ss` (or `h:mm:ss`) of a duration in seconds. */
export function clock(seconds: number): string {
	const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0))
	const h = Math.floor(s / 3600)
	const m = Math.floor((s % 3600) / 60)
	const ss = String(s % 60).padStart(2, '0')
	return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`
}

/** Every variable with its name. */
export function variableDefinitions(): CompanionVariableDefinitions {
	const defs: CompanionVariableDefinitions = {
		connection: { name: 'Connection: ok, connecting, down or auth' },
		project_name: { name: 'Active Project' },
		song_title: { name: 'Active Song title' },
		song_index: { name: 'Active Song position in the Project, from 1' },
		song_count: { name: 'Songs in the Project' },
		song_position: { name: 'Active Song position (m:ss)' },
		song_remaining: { name: 'Active Song time remaining (m:ss)' },
		clip_name: { name: 'Selected Clip name' },
		clip_state: { name: 'Selected Clip play state' },
		clip_position: { name: 'Selected Clip position (m:ss)' },
		clip_remaining: { name: 'Selected Clip time remaining (m:ss)' },
		output_level: { name: 'Output level, 0-100 %' },
		muted: { name: 'Output muted (true/false)' },
		recording_state: { name: 'Recording: idle, armed or recording' },
		recording_time: { name: 'Recording time (m:ss)' },
	}
	for (const l of CONTROL_LETTERS) defs[`control_${l.toLowerCase()}`] = { name: `Control ${l} value` }
	return defs
}

/** Every variable's value now; `now` (ms since the epoch) times the recording. */
export function variableValues(state: ShowState, connection: string, now: number): CompanionVariableValues {
	const play = state.playstate
	const song = state.activeSong()
	const selected = play?.selectedClipID ? state.clip(play.selectedClipID) : undefined
	const clipPlay = play?.clips.find((c) => c.clipID === selected?.clipID)
	const clipPos = clipPlay?.position ?? 0
	const clipDur = clipPlay?.duration ?? selected?.duration ?? 0
	const rec = state.appState?.recording
	const started = rec?.startedAt === null || rec?.startedAt === undefined ? NaN : new Date(rec.startedAt).getTime()
	const values: CompanionVariableValues = {
		connection,
		project_name: state.project?.name ?? '',
		song_title: song?.title ?? '',
		song_index: song ? song.position + 1 : 0,
		song_count: state.project?.songs.length ?? 0,
		song_position: clock(play?.song?.position ?? 0),
		song_remaining: clock((play?.song?.duration ?? 0) - (play?.song?.position ?? 0)),
		clip_name: selected?.name ?? '',
		clip_state: selected ? state.clipState(selected.clipID) : '',
		clip_position: clock(clipPos),
		clip_remaining: clock(clipDur - clipPos),
		output_level: Math.round((state.appState?.volume ?? 0) * 100),
		muted: state.appState?.muted ?? false,
		recording_state: rec?.state ?? 'idle',
		recording_time: rec?.state === 'recording' && Number.isFinite(started) ? clock((now - started) / 1000) : clock(0),
	}
	for (const l of CONTROL_LETTERS) {
		values[`control_${l.toLowerCase()}`] = Math.round(state.controlValue(l) * 1000) / 1000
	}
	return values
}
