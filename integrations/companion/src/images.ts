/**
 * Key images drawn by the module, as PNGs of the key's size (pngjs: a maintained pure-JS codec,
 * so the package needs no native addon): the Clip thumbnail with its play state drawn over it,
 * and a Control's value as a bar.
 */
import { PNG } from 'pngjs'

/** RGB colours of the play states (the frame drawn around a thumbnail). */
export const STATE_COLOURS = {
	playing: [0, 204, 68],
	paused: [255, 170, 0],
	armed: [0, 136, 255],
	stopped: [0, 0, 0],
} as const

/** The play state a Clip key shows. */
export type KeyState = keyof typeof STATE_COLOURS

function blank(width: number, height: number): PNG {
	const png = new PNG({ width, height })
	png.data.fill(0)
	for (let i = 3; i < png.data.length; i += 4) png.data[i] = 255
	return png
}

function fillRect(png: PNG, x0: number, y0: number, w: number, h: number, rgb: readonly number[]): void {
	for (let y = Math.max(0, y0); y < Math.min(png.height, y0 + h); y++) {
		for (let x = Math.max(0, x0); x < Math.min(png.width, x0 + w); x++) {
			const i = (y * png.width + x) * 4
			png.data[i] = rgb[0]
			png.data[i + 1] = rgb[1]
			png.data[i + 2] = rgb[2]
			png.data[i + 3] = 255
		}
	}
}

/** Darkens the bottom `rows` of the key, so the key's text stays legible over a bright picture. */
function shadeBottom(png: PNG, rows: number): void {
	for (let i = (png.height - rows) * png.width * 4; i < png.data.length; i += 4) {
		png.data[i] = png.data[i] >> 1
		png.data[i + 1] = png.data[i + 1] >> 1
		png.data[i + 2] = png.data[i + 2] >> 1
	}
}

/**
 * The thumbnail (a square PNG from the service, already carrying its play/pause glyph) centred on
 * a key of `width` x `height`, its bottom quarter shaded for the key's text, framed in the colour
 * of `state`.
 */
export function thumbnailKey(thumbnail: Buffer | null, width: number, height: number, state: KeyState): Buffer {
	const key = blank(width, height)
	if (thumbnail) {
		const src = PNG.sync.read(thumbnail)
		const dx = Math.floor((width - src.width) / 2)
		const dy = Math.floor((height - src.height) / 2)
		PNG.bitblt(
			src,
			key,
			Math.max(0, -dx),
			Math.max(0, -dy),
			Math.min(src.width, width),
			Math.min(src.height, height),
			Math.max(0, dx),
			Math.max(0, dy),
		)
	}
	shadeBottom(key, Math.round(height / 4))
	if (state !== 'stopped') {
		const t = Math.max(2, Math.round(Math.min(width, height) / 16))
		const rgb = STATE_COLOURS[state]
		fillRect(key, 0, 0, width, t, rgb)
		fillRect(key, 0, height - t, width, t, rgb)
		fillRect(key, 0, 0, t, height, rgb)
		fillRect(key, width - t, 0, t, height, rgb)
	}
	return PNG.sync.write(key)
}

/** A horizontal bar of `value` (0.0-1.0, clamped for drawing) along the key's bottom fifth. */
export function barKey(value: number, width: number, height: number, rgb: readonly number[]): Buffer {
	const key = new PNG({ width, height })
	key.data.fill(0) // transparent: the key's own text and colour show through
	const h = Math.max(4, Math.round(height / 5))
	const y = height - h - 2
	const filled = Math.round((width - 4) * Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0)))
	fillRect(key, 2, y, width - 4, h, [48, 48, 48])
	fillRect(key, 2, y, filled, h, rgb)
	return PNG.sync.write(key)
}

/** The size of a PNG, from its header. */
export function pngSize(png: Buffer): { width: number; height: number } {
	return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
}

/**
 * The output's picture fitted whole on a key of `width` x `height` (scaled, its shape kept, black
 * around it), nearest pixel: a key is small, and a preview is drawn about once a second.
 */
export function previewKey(picture: PNG, width: number, height: number): Buffer {
	const key = blank(width, height)
	const scale = Math.min(width / picture.width, height / picture.height)
	const w = Math.max(1, Math.round(picture.width * scale))
	const h = Math.max(1, Math.round(picture.height * scale))
	const x0 = Math.floor((width - w) / 2)
	const y0 = Math.floor((height - h) / 2)
	for (let y = 0; y < h; y++) {
		const sy = Math.min(picture.height - 1, Math.floor((y + 0.5) / scale))
		for (let x = 0; x < w; x++) {
			const sx = Math.min(picture.width - 1, Math.floor((x + 0.5) / scale))
			const from = (sy * picture.width + sx) * 4
			const to = ((y0 + y) * width + x0 + x) * 4
			key.data[to] = picture.data[from]
			key.data[to + 1] = picture.data[from + 1]
			key.data[to + 2] = picture.data[from + 2]
			key.data[to + 3] = 255
		}
	}
	return PNG.sync.write(key)
}
