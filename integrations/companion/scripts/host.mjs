/**
 * A stand-in for Companion's module host, for tests and the docs generator: run as a child
 * process with an IPC channel, it does what Companion's connection entrypoint does for a module
 * built on @companion-module/base 2.x (that entrypoint and its @companion-module/host are part of
 * Companion, not published on npm). It registers, imports the built module's default export,
 * gives it an instance context, and speaks the host protocol over IPC: calls in from the host
 * (`init`, `updateConfig`, `getConfigFields`, `executeAction`, `updateFeedbacks`, `destroy`) and
 * messages out to it (`setActionDefinitions`, `setFeedbackDefinitions`, `setVariableDefinitions`,
 * `setVariableValues`, `updateFeedbackValues`, `setPresetDefinitions`, `set-status`, `saveConfig`,
 * `log-message`), each packet `{direction: 'call' | 'response', name, payload, callbackId}`.
 *
 * Env: MODULE_ENTRYPOINT (the built main.js), VERIFICATION_TOKEN.
 */
import { pathToFileURL } from 'node:url'

const entrypoint = process.env.MODULE_ENTRYPOINT
if (!entrypoint) throw new Error('Module host is missing MODULE_ENTRYPOINT')
if (!process.send) throw new Error('Module host is not being run with ipc')

let nextCallbackId = 1
const pending = new Map()

function send(name, payload) {
	process.send({ direction: 'call', name, payload, callbackId: undefined })
}
async function call(name, payload) {
	const callbackId = nextCallbackId++
	const answer = new Promise((resolve, reject) => pending.set(callbackId, { resolve, reject }))
	process.send({ direction: 'call', name, payload, callbackId })
	return answer
}

globalThis.COMPANION_LOGGER = (source, level, message) =>
	send('log-message', { time: Date.now(), source, level, message })

/** Definitions without their callbacks: what crosses to Companion. */
function describe(defs) {
	const out = {}
	for (const [id, def] of Object.entries(defs)) {
		if (!def) continue
		const rest = Object.fromEntries(Object.entries(def).filter(([, v]) => typeof v !== 'function'))
		out[id] = { ...rest, hasLearn: !!def.learn }
	}
	return out
}

/**
 * The checks Companion's host makes on preset definitions (`sanitisePresetDefinitions`): every
 * action and feedback a preset uses exists with those option keys, and the structure and the
 * presets name each other. Each kind of problem is one `warn` log line, as there.
 */
function checkPresets(structure, presets) {
	const problems = new Map()
	const note = (kind, name) => problems.set(kind, [...(problems.get(kind) ?? []), name])
	const checkKeys = (defs, id, options, unknownKind, keysKind, name) => {
		const def = defs[id]
		if (!def) return note(unknownKind, name)
		const valid = new Set(def.options.map((o) => o.id))
		if (Object.keys(options ?? {}).some((k) => !valid.has(k))) note(keysKind, name)
	}
	for (const preset of Object.values(presets)) {
		if (!preset || !Array.isArray(preset.steps) || !Array.isArray(preset.feedbacks) || !preset.style) {
			note('could not be validated', preset?.name)
			continue
		}
		for (const f of preset.feedbacks) {
			checkKeys(
				feedbacks,
				f.feedbackId,
				f.options,
				'reference unknown feedback definitions',
				'reference unknown feedback option keys',
				preset.name,
			)
		}
		for (const step of preset.steps) {
			for (const key of ['down', 'up', 'rotate_left', 'rotate_right']) {
				for (const a of step[key] ?? []) {
					checkKeys(
						actions,
						a.actionId,
						a.options,
						'reference unknown action definitions',
						'reference unknown action option keys',
						preset.name,
					)
				}
			}
		}
	}
	const referenced = new Set(structure.flatMap((section) => section.definitions))
	for (const id of Object.keys(presets)) if (!referenced.has(id)) note('are not referenced by structure', id)
	for (const id of referenced) if (!presets[id]) note('are referenced in structure but do not exist', id)
	for (const [kind, names] of problems) {
		globalThis.COMPANION_LOGGER(
			'PresetDefinitionsManager',
			'warn',
			`The following preset definitions ${kind}: ${names.sort().join(', ')}`,
		)
	}
}

let instance = null
let instanceContext = null
let actions = {}
let feedbacks = {}
const feedbackInstances = new Map()
const variableValues = new Map()

async function runFeedbacks(filter) {
	const values = []
	for (const fb of feedbackInstances.values()) {
		const def = feedbacks[fb.feedbackId]
		if (!def || !filter(fb)) continue
		let value
		try {
			value = await def.callback({ ...fb, type: def.type, previousOptions: null }, { type: 'feedback' })
		} catch (err) {
			globalThis.COMPANION_LOGGER('Host', 'error', `Feedback ${fb.feedbackId} failed: ${err}`)
			value = undefined
		}
		values.push({ id: fb.id, controlId: fb.controlId, feedbackType: def.type, value })
	}
	if (values.length) send('updateFeedbackValues', { values })
}

/** A feedback taken off its key: its definition's `unsubscribe` runs, as in Companion. */
function unsubscribeFeedback(id) {
	const fb = feedbackInstances.get(id)
	feedbackInstances.delete(id)
	const def = fb && feedbacks[fb.feedbackId]
	if (def?.unsubscribe) void Promise.resolve(def.unsubscribe({ ...fb, type: def.type }, { type: 'feedback' }))
}

function context(connectionId) {
	return {
		_isInstanceContext: true,
		id: connectionId,
		label: connectionId,
		upgradeScripts: [],
		saveConfig: (config, secrets) => send('saveConfig', { config, secrets }),
		updateStatus: (status, message) => send('set-status', { status, message }),
		oscSend: () => {},
		recordAction: () => {},
		setActionDefinitions: (defs) => {
			actions = defs
			send('setActionDefinitions', { actions: describe(defs) })
		},
		subscribeActions: () => {},
		unsubscribeActions: () => {},
		setFeedbackDefinitions: (defs) => {
			feedbacks = defs
			send('setFeedbackDefinitions', { feedbacks: describe(defs) })
		},
		unsubscribeFeedbacks: () => {},
		checkFeedbacks: (types) => void runFeedbacks((fb) => types.includes(fb.feedbackId)),
		checkAllFeedbacks: () => void runFeedbacks(() => true),
		checkFeedbacksById: (ids) => void runFeedbacks((fb) => ids.includes(fb.id)),
		setPresetDefinitions: (structure, presets) => {
			checkPresets(structure, presets)
			send('setPresetDefinitions', { structure, presets })
		},
		setVariableDefinitions: (defs) => {
			const variables = Object.entries(defs).map(([id, d]) => ({ id, name: d.name }))
			send('setVariableDefinitions', { variables, newValues: [] })
		},
		setVariableValues: (values) => {
			const newValues = []
			for (const [id, value] of Object.entries(values)) {
				if (variableValues.get(id) === value) continue
				variableValues.set(id, value)
				newValues.push({ id, value })
			}
			if (newValues.length) send('setVariableValues', { newValues })
		},
		getVariableValue: (id) => variableValues.get(id),
		sharedUdpSocketHandlers: new Map(),
		sharedUdpSocketJoin: async () => {
			throw new Error('Not supported by this host')
		},
		sharedUdpSocketLeave: async () => {},
		sharedUdpSocketSend: async () => {},
	}
}

const handlers = {
	init: async (msg) => {
		instanceContext.label = msg.label
		await instance.init(msg.config, !!msg.isFirstInit, msg.secrets)
		return { hasHttpHandler: false, hasRecordActionsHandler: false, newUpgradeIndex: -1, disableNewConfigLayout: false }
	},
	updateConfig: async (msg) => {
		instanceContext.label = msg.label
		return instance.configUpdated(msg.config, msg.secrets)
	},
	getConfigFields: async () => ({ fields: instance.getConfigFields() }),
	destroy: async () => instance.destroy(),
	executeAction: async (msg) => {
		const def = actions[msg.action.actionId]
		if (!def) return { success: false, errorMessage: `Unknown action ${msg.action.actionId}` }
		try {
			await def.callback({ ...msg.action, surfaceId: msg.surfaceId }, { type: 'action', setCustomVariableValue() {} })
			return { success: true, errorMessage: undefined }
		} catch (err) {
			return { success: false, errorMessage: String(err?.message ?? err) }
		}
	},
	updateFeedbacks: async (msg) => {
		const changed = []
		for (const [id, fb] of Object.entries(msg.feedbacks)) {
			if (fb) {
				feedbackInstances.set(id, fb)
				changed.push(id)
			} else unsubscribeFeedback(id)
		}
		await runFeedbacks((fb) => changed.includes(fb.id))
	},
}

process.on('message', (packet) => {
	if (packet.direction === 'response') {
		const p = pending.get(packet.callbackId)
		pending.delete(packet.callbackId)
		if (p) (packet.success ? p.resolve : p.reject)(packet.payload)
		return
	}
	if (packet.direction !== 'call') return
	const handler = handlers[packet.name]
	const respond = (success, payload) => {
		if (packet.callbackId) process.send({ direction: 'response', callbackId: packet.callbackId, success, payload })
	}
	if (!handler) return respond(false, { message: `Unknown command "${packet.name}"` })
	handler(packet.payload).then(
		(res) => respond(true, res),
		(err) => respond(false, { name: err?.name, message: String(err?.message ?? err), stack: err?.stack }),
	)
})
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'))

const { connectionId } = await call('register', { verificationToken: process.env.VERIFICATION_TOKEN ?? '' })
const moduleImport = await import(pathToFileURL(entrypoint).href)
const Module = typeof moduleImport === 'function' ? moduleImport : moduleImport.default
instanceContext = context(connectionId)
instance = new Module(instanceContext)
send('ready', {})
