/** The connection's config page: discovery, address, pairing. */
import type { SomeCompanionConfigField } from '@companion-module/base'

/** What the config page stores. */
export type CueportConfig = {
	bonjour: string | null
	host: string
	httpPort: number
	wsPort: number
	pairingCode: string
	deviceName: string
	/**
	 * The other rigs of a rig group (docs/companion.md, "Rig groups"): `host`, `host:wsPort` or
	 * `host:wsPort:httpPort`, comma-separated (IPv6 in brackets). The module also learns them from
	 * the group of the rig it is on, and moves to the next when its rig stops answering.
	 */
	rigs?: string
	/** How often the link is checked (ms): a dead link is seen within two of these. */
	linkCheckMs?: number
}

/**
 * What Companion keeps in its secrets store: the device token from pairing or from an approval
 * (of the first rig), and those of the other rigs of a group, by `host:wsPort`.
 */
export type CueportSecrets = {
	token: string
	rigTokens?: Record<string, string>
}

/** Where the service is. */
export interface Endpoint {
	host: string
	httpPort: number
	wsPort: number
}

/** The fields of the config page; `bonjour` matches the manifest's bonjour query. */
export function configFields(): SomeCompanionConfigField[] {
	const manual = '!$(options:bonjour)'
	return [
		{
			type: 'static-text',
			id: 'intro',
			label: 'Cueport',
			value:
				'Pick a Cueport service found on the network, or type its address. From another computer: on the show machine run `cueport pair` and type the 6-digit code below. When Companion runs on the show machine itself, no code is needed: the first connection is approved on the show machine (as the approval setting of the service says) and the token it gets is kept below, so a restart does not ask again.',
			width: 12,
		},
		{ type: 'bonjour-device', id: 'bonjour', label: 'Cueport on the network', width: 6 },
		{
			type: 'textinput',
			id: 'host',
			label: 'Address',
			width: 6,
			default: '127.0.0.1',
			isVisibleExpression: manual,
		},
		{
			type: 'number',
			id: 'wsPort',
			label: 'WebSocket port',
			width: 3,
			min: 1,
			max: 65535,
			default: 17734,
			isVisibleExpression: manual,
		},
		{ type: 'number', id: 'httpPort', label: 'HTTP port', width: 3, min: 1, max: 65535, default: 17736 },
		{
			type: 'textinput',
			id: 'pairingCode',
			label: 'Pairing code (6 digits, from `cueport pair`)',
			width: 6,
			default: '',
			regex: '/^(\\d{6})?$/',
		},
		{ type: 'textinput', id: 'deviceName', label: 'Device name', width: 6, default: 'Companion' },
		{
			type: 'secret-text',
			id: 'token',
			label: 'Device token (filled in by pairing or by the approval on the show machine)',
			width: 12,
			default: '',
		},
		{
			type: 'textinput',
			id: 'rigs',
			label:
				'Other rigs of the group (host, host:wsPort or host:wsPort:httpPort, comma-separated; also learned from the group): the module moves to the next when its rig stops answering',
			width: 12,
			default: '',
		},
		{
			type: 'number',
			id: 'linkCheckMs',
			label: 'Link check (ms): a dead link (a pulled cable) is seen within two of these',
			width: 6,
			min: 50,
			max: 60000,
			default: 2000,
		},
	]
}

/** The address to use: the discovered service when one is picked, else the typed one. */
export function resolveEndpoint(config: Partial<CueportConfig>): Endpoint | null {
	const httpPort = Number(config.httpPort) || 17736
	const picked = typeof config.bonjour === 'string' ? config.bonjour.trim() : ''
	if (picked) {
		const colon = picked.lastIndexOf(':')
		const port = Number(picked.slice(colon + 1))
		const host = picked.slice(0, colon).replace(/^\[|\]$/g, '')
		if (colon > 0 && Number.isInteger(port)) return { host, wsPort: port, httpPort }
	}
	const host = (config.host ?? '').trim().replace(/^\[|\]$/g, '')
	if (!host || /\s/.test(host)) return null
	return { host, httpPort, wsPort: Number(config.wsPort) || 17734 }
}

/** An endpoint's key in `CueportSecrets.rigTokens` and in the status: `host:wsPort`. */
export function endpointKey(endpoint: Endpoint): string {
	const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host
	return `${host}:${endpoint.wsPort}`
}

/**
 * Every rig to try, in order: the picked or typed one first, then those of `rigs` (each with the
 * first one's ports unless it names its own); none when the first is missing.
 */
export function resolveEndpoints(config: Partial<CueportConfig>): Endpoint[] {
	const first = resolveEndpoint(config)
	if (!first) return []
	const list = [first]
	for (const item of (config.rigs ?? '').split(/[,\s]+/)) {
		const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d+))?(?::(\d+))?$/.exec(item.trim())
		if (!match) continue
		const endpoint: Endpoint = {
			host: match[1] ?? match[2],
			wsPort: Number(match[3] ?? first.wsPort),
			httpPort: Number(match[4] ?? first.httpPort),
		}
		if (!list.some((e) => endpointKey(e) === endpointKey(endpoint))) list.push(endpoint)
	}
	return list
}
