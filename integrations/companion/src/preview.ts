/**
 * The output's preview on keys: one picture of the output at a time from Cueport
 * (`GET /api/v1/output/frame.png`), fetched only while some key shows the `output_preview`
 * feedback, at the shortest interval those keys ask for; each key is drawn again at its own
 * interval. Refusals (no output runs) back off and clear the picture, so no key shows a stale one.
 * Once stopped (`stop`, the module destroyed) nothing is fetched again, even by a fetch in flight.
 * It imports nothing, so the service's tests run it as it is.
 */

/** What the preview needs from the module; `P` is the decoded picture (pngjs's `PNG`). */
export interface PreviewHost<P> {
	/** The output's picture, decoded, whose longer side is `size` px; throws with the service's reason. */
	fetchFrame(size: number): Promise<P>
	/** The range of `size` the service takes (the catalog's `pictureSize`). */
	sizes: { min: number; max: number }
	/** Runs the feedbacks of these ids again (Companion's `checkFeedbacksById`). */
	redraw(ids: string[]): void
	log(level: 'debug' | 'info' | 'warn', message: string): void
}

/** The interval option's bounds (ms) and default: about a picture a second per key. */
export const PREVIEW_INTERVAL = { min: 250, max: 60_000, default: 1000 } as const
/** The longest wait between tries while the service refuses the preview. */
const MAX_BACKOFF_MS = 30_000

interface Key {
	everyMs: number
	size: number
	drawnAt: number
}

/** What a key shows now: the last picture (decoded), or why there is none. */
export interface PreviewPicture<P> {
	picture: P | null
	refusal: string | null
}

/** The polling of the output's picture for the keys that show it. */
export class OutputPreview<P> {
	readonly #host: PreviewHost<P>
	readonly #keys = new Map<string, Key>()
	#picture: P | null = null
	#refusal: string | null = null
	#timer: ReturnType<typeof setTimeout> | null = null
	#isFetching = false
	#isClosed = false
	#failures = 0

	constructor(host: PreviewHost<P>) {
		this.#host = host
	}

	/** Called by a key's feedback: keeps the key (`id`) in the set and starts polling if idle. */
	use(id: string, everyMs: number, width: number, height: number): PreviewPicture<P> {
		const interval = Math.min(PREVIEW_INTERVAL.max, Math.max(PREVIEW_INTERVAL.min, everyMs || PREVIEW_INTERVAL.default))
		// A key drawn without a picture or a reason is drawn again as soon as one comes.
		const drawnAt = this.#picture || this.#refusal ? Date.now() : 0
		this.#keys.set(id, { everyMs: interval, size: Math.max(width, height), drawnAt })
		if (!this.#timer && !this.#isFetching && !this.#isClosed) void this.#fetch()
		return { picture: this.#picture, refusal: this.#refusal }
	}

	/** Called when a key no longer shows the feedback; the last key gone stops the polling. */
	release(id: string): void {
		if (!this.#keys.delete(id) || this.#keys.size > 0) return
		this.stop()
		this.#host.log('debug', 'Output preview: no key shows it, stopped')
	}

	/** How many keys show the preview (for tests and logs). */
	get keyCount(): number {
		return this.#keys.size
	}

	/** Whether a fetch is under way or due (for tests). */
	get isPolling(): boolean {
		return this.#isFetching || this.#timer !== null
	}

	/** Stops polling and forgets the picture (the last key gone; `use` starts it again). */
	stop(): void {
		if (this.#timer) clearTimeout(this.#timer)
		this.#timer = null
		this.#picture = null
		this.#failures = 0
	}

	/** Stops for good (the module destroyed): forgets the keys; a fetch in flight sets no timer. */
	close(): void {
		this.#isClosed = true
		this.#keys.clear()
		this.stop()
	}

	async #fetch(): Promise<void> {
		this.#timer = null
		if (this.#keys.size === 0 || this.#isClosed) return
		this.#isFetching = true
		const { min, max } = this.#host.sizes
		const size = Math.min(max, Math.max(min, Math.round(Math.max(...[...this.#keys.values()].map((k) => k.size)))))
		try {
			this.#picture = await this.#host.fetchFrame(size)
			if (this.#refusal) this.#host.log('info', 'Output preview: pictures again')
			this.#refusal = null
			this.#failures = 0
		} catch (err) {
			const reason = (err as Error).message
			if (reason !== this.#refusal) this.#host.log('warn', `Output preview: ${reason}`)
			this.#picture = null
			this.#refusal = reason
			this.#failures++
		} finally {
			this.#isFetching = false
		}
		if (this.#keys.size === 0 || this.#isClosed) return this.stop()
		this.#redrawDue()
		const every = Math.min(...[...this.#keys.values()].map((k) => k.everyMs))
		const wait = this.#failures > 0 ? Math.min(MAX_BACKOFF_MS, every * 2 ** (this.#failures - 1)) : every
		this.#timer = setTimeout(() => void this.#fetch(), wait)
	}

	/** Draws again the keys whose interval has passed (a tenth early counts: the timer is not exact). */
	#redrawDue(): void {
		const now = Date.now()
		const due = [...this.#keys].filter(([, k]) => now - k.drawnAt >= k.everyMs * 0.9).map(([id]) => id)
		if (due.length > 0) this.#host.redraw(due)
	}
}
