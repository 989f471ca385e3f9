/**
 * The Cueport connection module for Bitfocus Companion: actions from the catalog, live feedback,
 * variables and presets, over Cueport's public API (HTTP and the WebSocket).
 */
import { InstanceBase, InstanceStatus, type SomeCompanionConfigField } from '@companion-module/base'
import { actionDefinitions } from './actions.js'
import { configFields, type CueportConfig, type CueportSecrets, resolveEndpoints } from './config.js'
import { Connection, linkTiming } from './connection.js'
import { feedbackDefinitions } from './feedbacks.js'
import { type KeyState, thumbnailKey } from './images.js'
import { presetDefinitions } from './presets.js'
import { type Changes, ShowState, type Update } from './state.js'
import { variableDefinitions, variableValues } from './variables.js'
import { ThumbnailCache } from './thumbnails.js'
import { OutputPreview } from './preview.js'
import { PNG } from 'pngjs'
import { CATALOG } from './catalog.js'

type Types = {
	config: CueportConfig
	secrets: CueportSecrets
	actions: Record<string, any>
	feedbacks: Record<string, any>
	variables: Record<string, any>
}

const STATUS = {
	connecting: InstanceStatus.Connecting,
	ok: InstanceStatus.Ok,
	auth: InstanceStatus.AuthenticationFailure,
	down: InstanceStatus.Disconnected,
} as const

/** One Companion connection to one Cueport service. */
export default class CueportInstance extends InstanceBase<Types> {
	readonly state = new ShowState()
	#config: CueportConfig = {} as CueportConfig
	#secrets: CueportSecrets = { token: '' }
	#connection: Connection | null = null
	#connectionState = 'down'
	/** Why the last pairing code was refused; shown in the status. */
	#pairingRefused: string | null = null
	#structureKey = ''
	#clock: NodeJS.Timeout | null = null
	readonly #thumbnails = new ThumbnailCache(64)
	readonly #keys = new ThumbnailCache(128)
	readonly #sentVariables = new Map<string, unknown>()
	readonly #preview = new OutputPreview({
		fetchFrame: async (size) => PNG.sync.read(await this.#outputFrame(size)),
		sizes: CATALOG.pictureSize,
		redraw: (ids) => this.checkFeedbacksById(...ids),
		log: (level, message) => this.log(level, message),
	})

	async init(config: CueportConfig, _isFirstInit: boolean, secrets: CueportSecrets): Promise<void> {
		this.setVariableDefinitions(variableDefinitions())
		await this.configUpdated(config, secrets)
		this.#clock = setInterval(() => this.#onRecordingClock(), 1000)
	}

	async destroy(): Promise<void> {
		if (this.#clock) clearInterval(this.#clock)
		this.#preview.close()
		this.#connection?.stop()
		this.#connection = null
	}

	async configUpdated(config: CueportConfig, secrets: CueportSecrets): Promise<void> {
		this.#config = config
		this.#secrets = { token: secrets?.token ?? '', rigTokens: { ...secrets?.rigTokens } }
		this.#pairingRefused = null
		this.#connection?.stop()
		this.#connection = null
		this.#refreshDefinitions(true)
		const endpoints = resolveEndpoints(config)
		if (endpoints.length === 0) {
			this.updateStatus(InstanceStatus.BadConfig, 'Pick a Cueport service or type its address')
			return
		}
		this.#connection = new Connection(
			endpoints,
			{ ...this.#secrets, deviceName: config.deviceName || 'Companion' },
			{
				status: (state, message) => this.#onStatus(state, message),
				snapshot: (active, appState) => {
					this.state.reset(active, appState)
					this.#refresh({ structure: true, play: true, positions: true, controls: true, app: true, needsResync: false })
				},
				updates: (updates, changes) => this.#onUpdates(updates, changes),
				log: (level, message) => this.log(level, message),
				token: (token, rig) => this.#keepToken(token, rig),
			},
			linkTiming(config.linkCheckMs),
		)
		if (config.pairingCode && /^\d{6}$/.test(config.pairingCode.trim())) await this.#pair(config.pairingCode.trim())
		this.#connection?.start()
	}

	/** Keeps the token an approval gave (in the secrets store, as pairing does). */
	#keepToken(token: string, rig: string): void {
		this.#setToken(token, rig)
		this.saveConfig(this.#config, this.#secrets)
		this.log('info', 'Approved on the show machine: the device token is kept')
	}

	/** The token of a rig: the first rig's in `token`, the others' in `rigTokens` by `host:wsPort`. */
	#setToken(token: string, rig: string): void {
		const first = this.#connection?.rigs[0]
		if (rig === first) this.#secrets = { ...this.#secrets, token }
		else this.#secrets = { ...this.#secrets, rigTokens: { ...this.#secrets.rigTokens, [rig]: token } }
	}

	getConfigFields(): SomeCompanionConfigField[] {
		return configFields()
	}

	/**
	 * Exchanges the code of the config page for a device token, kept in the secrets store. A code
	 * is tried once: success or refusal, it is cleared from the config, so it is not sent again on
	 * the next config save or restart (each refused try counts toward the address's lockout).
	 */
	async #pair(code: string): Promise<void> {
		const connection = this.#connection
		if (!connection) return
		this.#pairingRefused = null
		this.#config = { ...this.#config, pairingCode: '' }
		try {
			const res = await connection.request('POST', '/api/v1/pair', {
				otp: code,
				deviceName: this.#config.deviceName || 'Companion',
			})
			if (res.status !== 200 || typeof res.body?.token !== 'string') {
				this.#pairingRefused = `Pairing refused: ${res.body?.error?.message ?? `HTTP ${res.status}`}; type a new code`
			} else {
				// With the rig it is on; the other rigs of a group accept it too (docs/companion.md).
				this.#setToken(res.body.token, connection.rig.key)
				connection.setToken(res.body.token)
				this.log('info', `Paired as device ${res.body.deviceId}`)
			}
		} catch (err) {
			this.#pairingRefused = `Pairing failed: ${(err as Error).message}; type a new code`
		}
		if (this.#pairingRefused) this.log('warn', this.#pairingRefused)
		this.saveConfig(this.#config, this.#secrets)
	}

	#onStatus(state: keyof typeof STATUS, message: string): void {
		this.#connectionState = state
		// A refused code stays in the status until the next config save, connected (on an older
		// token) or not.
		if (!this.#pairingRefused) this.updateStatus(STATUS[state], message)
		else if (state === 'ok') this.updateStatus(InstanceStatus.Ok, `${message}; ${this.#pairingRefused}`)
		else this.updateStatus(InstanceStatus.AuthenticationFailure, this.#pairingRefused)
		this.#pushVariables()
		this.checkFeedbacks('connected')
	}

	#onUpdates(updates: Update[], changes: Changes): void {
		for (const update of updates) this.state.apply(update, changes)
		this.#refresh(changes)
	}

	/** Pushes what changed: the variables that moved, feedbacks by kind, definitions when the structure did. */
	#refresh(changes: Changes): void {
		this.#pushVariables()
		if (changes.structure) this.#refreshDefinitions(false)
		if (changes.play) this.checkFeedbacks('clip_state', 'song_active', 'clip_thumbnail')
		if (changes.controls || changes.play) this.checkFeedbacks('control_bar')
		if (changes.app) this.checkFeedbacks('recording', 'muted', 'fullscreen')
	}

	/** Sends only the variables whose value changed since the last send. */
	#pushVariables(): void {
		const changed: Record<string, unknown> = {}
		for (const [id, value] of Object.entries(variableValues(this.state, this.#connectionState, Date.now()))) {
			if (this.#sentVariables.get(id) === value) continue
			this.#sentVariables.set(id, value)
			changed[id] = value
		}
		if (Object.keys(changed).length > 0) this.setVariableValues(changed)
	}

	/** Action, feedback and preset definitions carry the live Songs, Clips and Controls. */
	#refreshDefinitions(force: boolean): void {
		const key = JSON.stringify([
			this.state.project?.songs,
			this.state.project?.clips.map((c) => [c.clipID, c.name, c.fileId]),
			this.state.project?.controls,
			this.state.playstate?.activeSongID,
			this.label,
		])
		if (!force && key === this.#structureKey) return
		this.#structureKey = key
		// A Clip may have a new picture: draw the keys again.
		this.#thumbnails.clear()
		this.#keys.clear()
		this.setActionDefinitions(
			actionDefinitions({
				state: this.state,
				runAction: async (body) => this.#post('/api/v1/action', body, body.name),
				runEdit: async (name) => void (await this.#post('/api/v1/edit', { name, params: {} }, name)),
			}),
		)
		this.setFeedbackDefinitions(
			feedbackDefinitions({
				state: this.state,
				isConnected: () => this.#connectionState === 'ok',
				thumbnail: async (clipID, size, overlay) => this.#thumbnail(clipID, size, overlay),
				thumbnailKey: async (clipID, picture, width, height, state: KeyState) =>
					this.#keys.get(`${clipID} ${width}x${height} ${state} ${picture?.length ?? 0}`, async () =>
						thumbnailKey(picture, width, height, state),
					),
				preview: this.#preview,
			}),
		)
		const { structure, presets } = presetDefinitions(this.state, this.label)
		this.setPresetDefinitions(structure, presets)
		this.checkAllFeedbacks()
	}

	/** A refused action or edit is a log line, never a throw; true when it was taken. */
	async #post(path: string, body: unknown, what: string): Promise<boolean> {
		const connection = this.#connection
		if (!connection) {
			this.log('warn', `${what} not sent: not connected`)
			return false
		}
		try {
			const res = await connection.request('POST', path, body)
			if (res.status < 400) return true
			this.log('warn', `${what} refused: ${res.body?.error?.message ?? `HTTP ${res.status}`}`)
		} catch (err) {
			this.log('warn', `${what} failed: ${(err as Error).message}`)
		}
		return false
	}

	async #thumbnail(clipID: string, size: number, overlay: string): Promise<Buffer | null> {
		const clip = this.state.clip(clipID)
		const project = this.state.project?.projectId
		const connection = this.#connection
		if (!clip?.fileId || !project || !connection) return null
		const { min, max } = CATALOG.pictureSize
		const px = Math.min(max, Math.max(min, Math.round(size)))
		const path = `/thumbnails/${encodeURIComponent(project)}/${encodeURIComponent(clip.fileId)}.png?size=${px}&overlay=${overlay}&format=png`
		return this.#thumbnails.get(path, async () => {
			const res = await connection.request('GET', path)
			if (res.status !== 200 || !Buffer.isBuffer(res.body)) {
				this.log('debug', `Thumbnail of ${clipID}: HTTP ${res.status}`)
				return null
			}
			return res.body
		})
	}

	/** The output's picture now (`GET /api/v1/output/frame.png`); throws with the service's reason. */
	async #outputFrame(size: number): Promise<Buffer> {
		const connection = this.#connection
		if (!connection) throw new Error('not connected')
		const res = await connection.request('GET', `/api/v1/output/frame.png?size=${size}`)
		if (res.status === 200 && Buffer.isBuffer(res.body)) return res.body
		throw new Error(res.body?.error?.message ?? `HTTP ${res.status}`)
	}

	#onRecordingClock(): void {
		if (this.state.appState?.recording.state === 'recording') {
			this.#pushVariables()
		}
	}
}

/** No upgrade scripts yet: the first release. */
export const UpgradeScripts = []
