/**
 * Where each Control is heading while a dial turns: a relative `SET_CONTROL` steps from the value
 * last sent, not the last one received, so ticks faster than the round trip add up. Sends of one
 * Control never overlap (two HTTP requests may arrive out of order): while one is out, only the
 * newest target waits, and it is sent when the first is answered. The service's updates win
 * again once nothing is out.
 */

interface Target {
	value: number
	/** A send of this Control is out. */
	inFlight: boolean
	/** The newest target that waits for the send that is out. */
	next: number | null
}

/** Sends one value; true when the service took it. */
export type SendControl = (value: number) => Promise<boolean>

/** The pending targets of the Controls. */
export class ControlTargets {
	readonly #targets = new Map<string, Target>()

	/** The value a relative step starts from: the pending target, else `live`. */
	from(letter: string, live: number): number {
		return this.#targets.get(letter)?.value ?? live
	}

	/** Heads for `value`: sends it now, or after the send that is out. */
	async set(letter: string, value: number, live: () => number, send: SendControl): Promise<void> {
		const existing = this.#targets.get(letter)
		if (existing?.inFlight) {
			existing.value = value
			existing.next = value
			return
		}
		const target: Target = { value, inFlight: true, next: null }
		this.#targets.set(letter, target)
		let sending = value
		let taken: boolean
		for (;;) {
			taken = await send(sending).catch(() => false)
			if (!taken || target.next === null) break
			sending = target.next
			target.next = null
		}
		target.inFlight = false
		// Refused, or its update already came: the service's value is the truth again.
		if (this.#targets.get(letter) === target && (!taken || live() === target.value)) this.#targets.delete(letter)
	}

	/** An update of the Control came: once nothing is out, it is the truth. */
	received(letter: string): void {
		const target = this.#targets.get(letter)
		if (target && !target.inFlight) this.#targets.delete(letter)
	}

	/** Forgets every target (a new snapshot). */
	clear(): void {
		this.#targets.clear()
	}
}
