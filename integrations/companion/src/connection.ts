/**
 * The module's link to one Cueport service, through the public API only: the WebSocket at `/v1`
 * for live state (auth, subscribe, queries, state updates; reconnect with back-off and a resync
 * after every drop or gap) and HTTP for actions, edits, pairing and thumbnails. In a rig group it
 * knows every rig (those configured, and those `GET /api/v1/group` names) and, when its rig stops
 * answering (the socket closed and a reconnect failed), moves to the next (docs/companion.md).
 * It pairs once: on a rig it has no token of, it uses the token it paired with (a group shares
 * its pairings), and only a rig that refuses that token is left to pair on its own.
 */
import WebSocket from 'ws'
import { type Endpoint, endpointKey } from './config.js'
import { type AppState, type Changes, noChanges, type PlayState, type Project, type Update } from './state.js'

/** Delays between reconnect attempts: doubling from 250 ms, at most 5 s. */
export const BACKOFF_MS = { first: 250, max: 5000 }

/**
 * How the link is checked: a WebSocket ping every `pingMs` (the service answers each with a pong);
 * with no pong for two intervals the socket is taken as dead, ended and reopened. A query with no
 * answer in `callMs` is refused; the `auth` call may wait for the operator's approval
 * (2 minutes on the service), so it gets `authMs`.
 */
export interface LinkTiming {
	pingMs: number
	callMs: number
	authMs: number
}

/** The timing for a ping interval (the config page's "Link check", 2 s by default). */
export function linkTiming(pingMs = 2000): LinkTiming {
	const ping = Math.max(50, Number(pingMs) || 2000)
	return { pingMs: ping, callMs: 5 * ping, authMs: 150_000 }
}

/** What the connection tells the module. */
export interface ConnectionEvents {
	status(state: 'connecting' | 'ok' | 'auth' | 'down', message: string): void
	snapshot(active: { project: Project | null; playstate: PlayState | null }, appState: AppState | null): void
	updates(updates: Update[], changes: Changes): void
	log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void
	/** The service gave this link a device token (an approval on the show machine): keep it. */
	token(token: string, rig: string): void
}

/** An answer of the HTTP API. */
export interface HttpAnswer {
	status: number
	body: any
}

/** The live link; `start` once, `stop` to end it. */
export class Connection {
	#http = ''
	#ws = ''
	#token = ''
	/** The rigs to try, in order; `#at` the one used now. */
	readonly #rigs: Endpoint[]
	#at = 0
	/** The tokens by rig (`endpointKey`); the first rig's is `auth.token`. */
	readonly #tokens: Map<string, string>
	/** The token it paired with, used on a rig it has no token of (the group shares pairings). */
	#paired: string
	/** Whether `#token` is `#paired` used on a rig it was not paired with. */
	#borrowed = false
	/** The rigs that refused `#paired` (an older rig, pairing not shared): as alone, pair there. */
	readonly #refusedPaired = new Set<string>()
	/** This rig's name and its group, once `GET /api/v1/group` answered (null alone). */
	#rig: { name: string; group: string } | null = null
	/** Whether the socket of the rig used now reached `ok` (a drop then retries the same rig first). */
	#wasOk = false
	readonly #deviceName: string
	readonly #events: ConnectionEvents
	#socket: WebSocket | null = null
	#stopped = false
	#retry: NodeJS.Timeout | null = null
	#delay = BACKOFF_MS.first
	#nextId = 1
	#pending = new Map<string, { resolve: (v: any) => void; reject: (e: Error) => void }>()
	readonly #timing: LinkTiming
	#pinger: NodeJS.Timeout | null = null
	/** When the last pong (or the opening) was seen, ms. */
	#lastPong = 0
	#seq = 0
	#resyncing: Promise<void> | null = null
	/** Why the last auth was refused (a revoked device, a rotated key): the status says so until one succeeds. */
	#authRefused: string | null = null

	constructor(
		endpoints: Endpoint | Endpoint[],
		auth: { token: string; deviceName: string; rigTokens?: Record<string, string> },
		events: ConnectionEvents,
		timing: LinkTiming = linkTiming(),
	) {
		this.#timing = timing
		this.#rigs = Array.isArray(endpoints) ? [...endpoints] : [endpoints]
		this.#tokens = new Map(Object.entries(auth.rigTokens ?? {}))
		if (auth.token) this.#tokens.set(endpointKey(this.#rigs[0]), auth.token)
		this.#paired = auth.token || (Object.values(auth.rigTokens ?? {})[0] ?? '')
		this.#deviceName = auth.deviceName
		this.#events = events
		this.#use(0)
	}

	/** The rig used now: its key (`host:wsPort`) and, in a group, its name. */
	get rig(): { key: string; name: string | null; group: string | null } {
		return { key: endpointKey(this.#rigs[this.#at]), name: this.#rig?.name ?? null, group: this.#rig?.group ?? null }
	}

	/** Every rig known (configured and learned), in the order they are tried. */
	get rigs(): string[] {
		return this.#rigs.map(endpointKey)
	}

	#use(index: number): void {
		this.#at = index % this.#rigs.length
		const endpoint = this.#rigs[this.#at]
		const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host
		this.#http = `http://${host}:${endpoint.httpPort}`
		this.#ws = `ws://${host}:${endpoint.wsPort}/v1`
		const key = endpointKey(endpoint)
		const own = this.#tokens.get(key)
		this.#borrowed = !own && !!this.#paired && !this.#refusedPaired.has(key)
		this.#token = own ?? (this.#borrowed ? this.#paired : '')
		this.#rig = null
	}

	/** The HTTP base URL. */
	get httpBase(): string {
		return this.#http
	}

	/** Opens the socket (and keeps reopening it until `stop`). */
	start(): void {
		this.#open()
	}

	/** Closes for good. */
	stop(): void {
		this.#stopped = true
		if (this.#retry) clearTimeout(this.#retry)
		this.#stopPinging()
		this.#socket?.terminate()
		this.#socket = null
	}

	/** Sets the token of the rig used now (after pairing) and reconnects with it. */
	setToken(token: string): void {
		this.#token = token
		this.#tokens.set(this.rig.key, token)
		// The token it paired with now: the one to use on the other rigs (again on those that
		// refused the last one: this pairing may be shared where that one was not).
		this.#paired = token
		this.#borrowed = false
		this.#refusedPaired.clear()
		this.#socket?.terminate()
	}

	/** Sends an HTTP request with the device token; never throws for a refusal. */
	async request(method: string, path: string, body?: unknown): Promise<HttpAnswer> {
		const headers: Record<string, string> = {}
		if (this.#token) headers.authorization = `Bearer ${this.#token}`
		if (body !== undefined) headers['content-type'] = 'application/json'
		const res = await fetch(this.#http + path, {
			method,
			headers,
			...(body === undefined ? {} : { body: JSON.stringify(body) }),
			signal: AbortSignal.timeout(this.#timing.callMs),
		})
		const type = res.headers.get('content-type') ?? ''
		if (type.startsWith('application/json')) return { status: res.status, body: await res.json() }
		return { status: res.status, body: Buffer.from(await res.arrayBuffer()) }
	}

	#open(): void {
		if (this.#stopped) return
		this.#events.status('connecting', `Connecting to ${this.#ws}`)
		const socket = new WebSocket(this.#ws, { handshakeTimeout: this.#timing.callMs })
		this.#socket = socket
		this.#seq = 0
		socket.on('message', (raw: Buffer) => this.#onMessage(raw.toString('utf8')))
		socket.on('error', (err) => this.#events.log('debug', `WebSocket error: ${err.message}`))
		socket.on('close', () => this.#onClose(socket))
		socket.on('pong', () => (this.#lastPong = Date.now()))
		socket.on('open', () => {
			this.#startPinging(socket)
			this.#authenticate().catch((err: Error) => {
				if (err.message.startsWith('AUTHENTICATION_FAILED')) this.#refused(err.message)
				else this.#events.log('warn', `Connecting failed: ${err.message}`)
				socket.close()
			})
		})
	}

	/**
	 * The rig refused the token: its own (say so until one succeeds), or the one paired with
	 * another rig (its pairing is not shared): then this rig is asked without it next time, as
	 * alone (an approval on its machine, or a code typed while on it).
	 */
	#refused(message: string): void {
		if (!this.#borrowed) {
			this.#authRefused = message
			return
		}
		this.#refusedPaired.add(this.rig.key)
		this.#borrowed = false
		this.#token = ''
		this.#authRefused = `${message} (this rig does not share the pairing)`
		this.#events.log('info', `Rig ${this.rig.key} refused the token paired with another rig: pair with it`)
	}

	/** Pings the open socket; no pong for two intervals: the link is dead (a pulled cable), end it. */
	#startPinging(socket: WebSocket): void {
		this.#stopPinging()
		this.#lastPong = Date.now()
		this.#pinger = setInterval(() => {
			if (Date.now() - this.#lastPong > 2 * this.#timing.pingMs) {
				this.#events.log('warn', `No answer from ${this.#ws} for ${Date.now() - this.#lastPong} ms: reconnecting`)
				socket.terminate()
				return
			}
			socket.ping()
		}, this.#timing.pingMs)
	}

	#stopPinging(): void {
		if (this.#pinger) clearInterval(this.#pinger)
		this.#pinger = null
	}

	#onClose(socket: WebSocket): void {
		if (this.#socket === socket) this.#stopPinging()
		for (const p of this.#pending.values()) p.reject(new Error('Connection closed'))
		this.#pending.clear()
		if (this.#socket !== socket || this.#stopped) return
		this.#socket = null
		const from = this.rig.key
		// A rig that does not answer (a refused or failed reconnect): the next rig, at once.
		if (!this.#wasOk && this.#rigs.length > 1) {
			this.#use(this.#at + 1)
			this.#events.log('info', `Rig ${from} does not answer: moving to rig ${this.rig.key}`)
			if (this.#at !== 0) this.#delay = BACKOFF_MS.first
		}
		this.#wasOk = false
		const next = `trying ${this.rig.key} in ${this.#delay} ms`
		if (this.#authRefused) {
			const which = this.#rigs.length > 1 ? `Rig ${from}: ` : ''
			this.#events.status('auth', `${which}${this.#authRefused}; pair again (${next})`)
		} else this.#events.status('down', `Disconnected; ${next}`)
		this.#retry = setTimeout(() => this.#open(), this.#delay)
		this.#delay = Math.min(this.#delay * 2, BACKOFF_MS.max)
	}

	async #authenticate(): Promise<void> {
		const payload = this.#token ? { token: this.#token } : { deviceName: this.#deviceName }
		const answer = await this.#call({ type: 'auth', payload }, this.#timing.authMs)
		// An approval on the show machine answers with a device token: use it from now on, so a
		// reconnect or a restart neither asks again nor adds a device entry.
		if (typeof answer?.token === 'string' && answer.token !== this.#token) {
			this.#token = answer.token
			this.#tokens.set(this.rig.key, answer.token)
			this.#events.token(answer.token, this.rig.key)
		}
		await this.#call({ type: 'subscribe', payload: { positions: true } })
		await this.resync()
		this.#authRefused = null
		this.#delay = BACKOFF_MS.first
		this.#wasOk = true
		await this.#learnGroup()
		const where = this.#rig ? ` to rig ${this.#rig.name} of group ${this.#rig.group} (${this.rig.key})` : ''
		this.#events.status('ok', `Connected${where}`)
	}

	/** The rig's group (`GET /api/v1/group`): its name, and its members added to the rigs to try. */
	async #learnGroup(): Promise<void> {
		let body: any
		try {
			const answer = await this.request('GET', '/api/v1/group')
			if (answer.status !== 200) return
			body = answer.body
		} catch {
			return // an older service, or a slow one: the configured rigs still serve
		}
		if (typeof body?.group !== 'string') return
		this.#rig = { name: String(body.rig), group: body.group }
		for (const member of Array.isArray(body.members) ? body.members : []) {
			const host = member?.addresses?.[0]
			const wsPort = Number(member?.ports?.ws)
			const httpPort = Number(member?.ports?.http)
			if (typeof host !== 'string' || !wsPort || !httpPort || member.isThisRig) continue
			const endpoint = { host, wsPort, httpPort }
			if (!this.rigs.includes(endpointKey(endpoint))) this.#rigs.push(endpoint)
		}
	}

	/** Reads the whole state again (after a connect, a `full` update or a gap in `seq`). */
	async resync(): Promise<void> {
		this.#resyncing ??= (async () => {
			try {
				const [active, appState] = await Promise.all([
					this.#call({ type: 'query', query: 'active' }),
					this.#call({ type: 'query', query: 'appState' }),
				])
				this.#events.snapshot(active, appState)
			} finally {
				this.#resyncing = null
			}
		})()
		return this.#resyncing
	}

	/** Sends one request; refused when the link closes or no answer comes in `timeoutMs`. */
	async #call(message: Record<string, unknown>, timeoutMs = this.#timing.callMs): Promise<any> {
		const socket = this.#socket
		if (!socket || socket.readyState !== WebSocket.OPEN) throw new Error('Not connected')
		const id = String(this.#nextId++)
		const answer = new Promise<any>((resolve, reject) => {
			const timer = setTimeout(() => {
				this.#pending.delete(id)
				reject(new Error(`No answer to ${String(message.type)} in ${timeoutMs} ms`))
			}, timeoutMs)
			this.#pending.set(id, {
				resolve: (v) => (clearTimeout(timer), resolve(v)),
				reject: (e) => (clearTimeout(timer), reject(e)),
			})
		})
		socket.send(JSON.stringify({ ...message, id }))
		return answer
	}

	#onMessage(text: string): void {
		let msg: any
		try {
			msg = JSON.parse(text)
		} catch {
			return
		}
		if (msg.type === 'response' || msg.type === 'error') {
			const pending = this.#pending.get(String(msg.id))
			if (!pending) return
			this.#pending.delete(String(msg.id))
			if (msg.type === 'response') pending.resolve(msg.data)
			else pending.reject(new Error(`${msg.error?.code}: ${msg.error?.message}`))
			return
		}
		if (msg.type === 'event' && msg.event === 'state-update') {
			try {
				this.#onUpdates(msg)
			} catch (err) {
				// A surprise in one update must not end the module: resync from a fresh snapshot.
				this.#events.log('error', `State update not applied: ${(err as Error).message}`)
				this.resync().catch(() => {})
			}
		}
	}

	#onUpdates(msg: { seq?: number; payload: Update[] }): void {
		const gap = typeof msg.seq === 'number' && this.#seq > 0 && msg.seq !== this.#seq + 1
		if (typeof msg.seq === 'number') this.#seq = msg.seq
		const changes: Changes = { ...noChanges(), needsResync: gap }
		this.#events.updates(Array.isArray(msg.payload) ? msg.payload : [], changes)
		if (changes.needsResync) {
			this.resync().catch((err: Error) => this.#events.log('warn', `Resync failed: ${err.message}`))
		}
	}
}
