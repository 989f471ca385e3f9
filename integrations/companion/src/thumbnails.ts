/** A small bounded cache of thumbnail PNGs by URL, sharing one request per URL in flight. */
export class ThumbnailCache {
	readonly #max: number
	readonly #entries = new Map<string, Promise<Buffer | null>>()

	constructor(max: number) {
		this.#max = max
	}

	/** The cached answer for `key`, or `load()`'s (a failed load is not kept). */
	async get(key: string, load: () => Promise<Buffer | null>): Promise<Buffer | null> {
		const hit = this.#entries.get(key)
		if (hit) {
			this.#entries.delete(key)
			this.#entries.set(key, hit)
			return hit
		}
		const pending = load().catch(() => null)
		this.#entries.set(key, pending)
		if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as string)
		const value = await pending
		if (value === null) this.#entries.delete(key)
		return value
	}

	/** Forgets everything (a Project edit may have changed the pictures). */
	clear(): void {
		this.#entries.clear()
	}
}
