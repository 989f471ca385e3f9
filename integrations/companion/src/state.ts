/**
 * The show as the module knows it: the active Project, its play state and the app state, kept
 * current from the WebSocket's state updates (every playstate update carries the whole play state,
 * every appState update the whole app state, so applying them in order is enough).
 */

import { ControlTargets } from './control_targets.js'

/** A Song of the Project. */
export interface Song {
	songID: string
	title: string
	position: number
	clipIDs: string[]
}

/** A Clip of the Project. */
export interface Clip {
	clipID: string
	name: string
	songID: string
	index: number
	fileId: string | null
	duration: number
}

/** A Control A-Z. */
export interface Control {
	controlID: string
	name: string
}

/** The Project in full, as `GET /api/v1/active` gives it. */
export interface Project {
	projectId: string
	name: string
	songs: Song[]
	clips: Clip[]
	controls: Control[]
}

/** One Clip's play state. */
export interface ClipPlay {
	clipID: string
	songID: string
	state: 'playing' | 'paused' | 'stopped'
	position: number
	duration: number
}

/** A Project's play state. */
export interface PlayState {
	projectId: string
	activeSongID: string | null
	selectedClipID: string | null
	song: { songID: string; state: string; position: number; duration: number } | null
	clips: ClipPlay[]
	controls: Record<string, number>
}

/** Full screen, mute, volume, recording. */
export interface AppState {
	fullScreen: boolean
	muted: boolean
	volume: number
	recording: { state: 'idle' | 'armed' | 'recording'; startedAt: string | number | null }
}

/** One entry of a state-update message. */
export interface Update {
	updateType: string
	projectId: string | null
	data: Record<string, any>
}

/** What an update changed, so the module refreshes only what depends on it. */
export interface Changes {
	/** Songs, Clips or Controls were added, removed or renamed: definitions and presets follow. */
	structure: boolean
	/** What plays, what is selected, the active Song. */
	play: boolean
	/** Only positions moved (every 250 ms while something plays): variables only. */
	positions: boolean
	/** A Control's value. */
	controls: boolean
	/** Mute, full screen, volume, recording. */
	app: boolean
	needsResync: boolean
}

/** Nothing changed yet. */
export function noChanges(): Changes {
	return { structure: false, play: false, positions: false, controls: false, app: false, needsResync: false }
}

/** The module's copy of the show. */
export class ShowState {
	project: Project | null = null
	playstate: PlayState | null = null
	appState: AppState | null = null
	/** Where the Controls are heading while a dial turns (`SET_CONTROL` relative steps). */
	readonly controlTargets = new ControlTargets()

	/** Replaces everything (after a connect, a `full` update or a gap). */
	reset(active: { project: Project | null; playstate: PlayState | null }, appState: AppState | null): void {
		this.controlTargets.clear()
		this.project = active.project
		this.playstate = active.playstate ? { ...active.playstate, controls: active.playstate.controls ?? {} } : null
		this.appState = appState
	}

	/** Applies one update in order; says what changed. */
	apply(update: Update, changes: Changes): void {
		const data = update.data ?? {}
		switch (update.updateType) {
			case 'playstate':
				if (data.playstate && (!this.project || data.playstate.projectId === this.project.projectId)) {
					const next = data.playstate as PlayState
					this.playstate = next
					if (data.event === 'positions') changes.positions = true
					else if (data.event !== 'control-changed') changes.play = true
				}
				if (data.event === 'control-changed' && this.playstate) {
					this.playstate.controls[String(data.controlID)] = Number(data.value)
					this.controlTargets.received(String(data.controlID))
					changes.controls = true
				}
				break
			case 'appState':
				if (data.appState) {
					this.appState = data.appState as AppState
					changes.app = true
				}
				break
			case 'volume':
				if (this.appState) {
					if (typeof data.level === 'number') this.appState.volume = data.level
					if (typeof data.muted === 'boolean') this.appState.muted = data.muted
					changes.app = true
				}
				break
			case 'project':
				// An edit (project-changed, project-edited): read the Project again; progress reports change nothing.
				if (!String(data.event).endsWith('-progress')) changes.needsResync = true
				break
			case 'song':
			case 'clip':
				if (data.event !== 'param-changed') changes.needsResync = true
				break
			case 'full':
				changes.needsResync = true
				break
		}
	}

	/** The Songs in order. */
	songs(): Song[] {
		return [...(this.project?.songs ?? [])].sort((a, b) => a.position - b.position)
	}

	/** A Clip by id. */
	clip(clipID: string): Clip | undefined {
		return this.project?.clips.find((c) => c.clipID === clipID)
	}

	/** The Clips of a Song, in order. */
	clipsOf(songID: string | null | undefined): Clip[] {
		const song = this.project?.songs.find((s) => s.songID === songID)
		if (!song) return []
		return song.clipIDs.map((id) => this.clip(id)).filter((c): c is Clip => !!c)
	}

	/** The active Song. */
	activeSong(): Song | undefined {
		return this.project?.songs.find((s) => s.songID === this.playstate?.activeSongID)
	}

	/** `playing`, `paused` or `stopped`. */
	clipState(clipID: string): ClipPlay['state'] {
		return this.playstate?.clips.find((c) => c.clipID === clipID)?.state ?? 'stopped'
	}

	/** A Control's current value (0 until it is set). */
	controlValue(controlID: string): number {
		return this.playstate?.controls?.[controlID.toUpperCase()] ?? 0
	}
}
