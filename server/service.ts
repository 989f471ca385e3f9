/**
 * Composes the service: the supervised player, the core and the three
 * listeners. `main.ts` calls it; tests start real services with it.
 * @module
 */
import { Method } from "../protocol/methods.ts";
import { Core } from "./core/mod.ts";
import { NO_API_ACCESS } from "./core/player_link.ts";
import { clearStaging } from "./core/uploads.ts";
import type { Settings } from "./config.ts";
import type { Logger } from "./log.ts";
import { playerProblemLine } from "../lib/recover_file.ts";
import { OscQueryServer, OscServer } from "./osc/mod.ts";
import { type MidiServer, openMidi } from "./midi/mod.ts";
import { inviteTarget, MidiSession } from "./midi/session.ts";
import { LocalMidi } from "./midi/local.ts";
import type { RtpMidiEvent } from "./midi/rtp/mod.ts";
import { TimecodeReader } from "./midi/timecode.ts";
import { PlayerReaderClock } from "./midi/reader_clock.ts";
import { receiveBufferAdvice, receiveBufferBytes } from "./osc/receive_buffer.ts";
import { MediaService } from "./media/mod.ts";
import {
  forwardPlayerLines,
  playerCommandOf,
  type PlayerLauncher,
  PlayerSupervisor,
  processLauncher,
  type WatchClock,
} from "./player_client/mod.ts";
import { machineHosts } from "./auth/hosts.ts";
import { RateLimiter, type RateMeter } from "./auth/rate_limit.ts";
import { authDamageLine, type AuthService, openAuth } from "./auth/service.ts";
import type { DataProblem } from "../protocol/library.ts";
import type { SocketServer } from "./socket/mod.ts";
import { LazyMcpEndpoint, mcpMounts } from "./mcp/lazy.ts";
import {
  addressProblem,
  type ConnectionServer,
  serveOnConnectionProblem,
  UdpPort,
} from "./net/mod.ts";
import {
  httpHandlerOf,
  type Listen,
  listenerOf,
  type ListenerParts,
  socketServerOf,
} from "./listeners.ts";
import {
  InstanceLock,
  optionalPortLine,
  portProblem,
  settingHint,
  StartupError,
} from "./startup.ts";
import { type Discovery, startDiscovery } from "./discovery/mod.ts";
import { API_VERSION, type ClientCounts, type ServicePorts } from "./routes/info.ts";
import type { HttpMount } from "./routes/mod.ts";
import { bindV5Listeners, type V5Listeners } from "./legacy/mod.ts";
import {
  aloneStatus,
  mediaMount,
  openRigGroup,
  replicateEdits,
  type RigGroup,
  RigMedia,
  sharePairings,
} from "./rigs/mod.ts";
import type { GroupStatus } from "../protocol/rigs.ts";

/** The service version (also the app version reported by the API). */
export { VERSION } from "./version.ts";
import { VERSION } from "./version.ts";

/** A started service. */
export interface RunningService {
  /** The bound ports; the 5.0.0 ones (`legacyHttp`, `legacyWs`) are null while off or skipped. */
  ports: ServicePorts & { legacyHttp: number | null; legacyWs: number | null };
  core: Core;
  supervisor: PlayerSupervisor;
  sockets: SocketServer;
  osc: OscServer;
  /** The OSCQuery server; null while off or when its port could not be bound. */
  oscQuery: OscQueryServer | null;
  /** The mDNS/DNS-SD advertisement (`server/discovery/`), unless `mdns` is off. */
  discovery: Discovery | null;
  /** The MCP endpoint on the HTTP port. */
  mcp: LazyMcpEndpoint;
  /** The MIDI transport (docs/midi.md): its endpoints are attached to it. */
  midi: MidiServer;
  /** The network MIDI session (`midiPort`); null while off. */
  midiSession: MidiSession | null;
  /** This rig's rig group (docs/rigs.md); null alone (no setting `group`): no etcd is touched. */
  rigs: RigGroup | null;
  /**
   * The files of the data dir found damaged: the player's (from its snapshot) and the
   * service's own (device registry, signing key, operator credential).
   */
  problems(): DataProblem[];
  /** Stops the listeners and the player; resolves when all is closed. */
  shutdown(): Promise<void>;
}

/**
 * Starts everything; resolves once the listeners are bound (the player may still be starting).
 * @throws {StartupError} when the data dir is in use or unusable, or a port cannot be bound
 */
export async function startService(
  settings: Settings,
  log: Logger,
  early?: EarlyStart,
): Promise<RunningService> {
  const lock = early?.lock ?? await InstanceLock.acquire(settings.dataDir, VERSION);
  const started: Array<() => Promise<void> | void> = [() => lock.release()];
  try {
    // The HTTP ports run on a private call of Deno (server/net/serve_connection.ts): checked first.
    const runtimeProblem = serveOnConnectionProblem();
    if (runtimeProblem !== null) throw new StartupError(runtimeProblem);
    const launcher = early?.launcher ?? playerLauncher(settings, log);
    return await start(settings, log, { lock, launcher, playerClock: early?.playerClock }, started);
  } catch (error) {
    for (const stop of started.reverse()) await Promise.resolve(stop()).catch(() => {});
    throw error;
  }
}

/** What `main.ts` starts before loading this module: the data dir's lock, then the player. */
export interface EarlyStart {
  lock: InstanceLock;
  launcher: PlayerLauncher;
  /** The clock the player's liveness is watched by (default the real one; tests advance theirs). */
  playerClock?: WatchClock;
}

/** The player of the settings, its stderr lines logged. */
export function playerLauncher(settings: Settings, log: Logger): PlayerLauncher {
  // Every player of this launcher (restarts too) is told when the service started.
  const command = playerCommandOf(settings, Date.now());
  return processLauncher(command, forwardPlayerLines(log));
}

/** Where a port that cannot be bound is changed. */
const PORT_SETTINGS = {
  HTTP: "httpPort",
  WebSocket: "wsPort",
  OSC: "oscPort",
} as const;

/**
 * `bind()` of the port `name`, with a failure to bind told as the setting to change: the
 * port's, or `host`'s when an address is at fault.
 */
async function bindPort<T>(
  name: keyof typeof PORT_SETTINGS,
  settings: Settings,
  bind: () => T | Promise<T>,
): Promise<T> {
  try {
    return await bind();
  } catch (error) {
    throw portError(name, settings[PORT_SETTINGS[name]], error, settings.host);
  }
}

function portError(
  name: keyof typeof PORT_SETTINGS,
  port: number,
  error: unknown,
  hosts: readonly string[],
): StartupError {
  const problem = addressProblem(error);
  if (problem !== null) {
    return new StartupError(
      `The ${name} port ${port} cannot be bound on ${hosts.join(", ")}: ${problem} (${
        (error as Error).message
      }): choose this machine's addresses with ${settingHint("host")}`,
    );
  }
  return new StartupError(
    `The ${name} port ${port} ${portProblem(error)}: choose another with ${
      settingHint(PORT_SETTINGS[name])
    }`,
  );
}

/**
 * Starts everything in its order: the OSC worker first (it binds beside the
 * rest), the core, the shared services, the 6.0 ports, OSCQuery, the 5.0.0
 * ports, then the player's handshake once every port is bound, and
 * discovery last. Each step needs the ones before, and each part started is
 * pushed on `started` so a failed start stops what it started.
 */
async function start(
  settings: Settings,
  log: Logger,
  early: { lock: InstanceLock; launcher: PlayerLauncher; playerClock: WatchClock | undefined },
  started: Array<() => Promise<void> | void>,
): Promise<RunningService> {
  const { lock } = early;
  const startedAt = performance.now();
  const oscOpening = openOscPort(settings, log, started);
  const { supervisor, core } = await openCore(settings, log, early);
  const ports: RunningService["ports"] = {
    http: 0,
    ws: 0,
    osc: 0,
    legacyHttp: null,
    legacyWs: null,
    midi: null, // the network MIDI session's control port, once bound (`openMidiSession`)
  };
  const services = await openServices(settings, log, core, supervisor, started);
  const { rigs, group, rigMedia } = rigGroupOf(settings, ports, log, core);
  // Counted when asked: no request is served before the 6.0 ports' parts exist but `v5`, set last.
  let v5Sockets: () => number = () => 0;
  const main = await bindMainPorts({
    ...{ settings, log, core, services, ports, startedAt, started, oscOpening, group },
    ...{ groupMounts: rigMedia ? [mediaMount(rigMedia)] : [], v5Sockets: () => v5Sockets() },
  });
  const { auth, media, mcp, midi } = services;
  const midiSession = openMidiSession(settings, services, log);
  if (midiSession) {
    started.push(() => midiSession.close());
    midi.attach(midiSession);
    ports.midi = midiSession.port;
  }
  const { listen, oscServer } = main;
  const oscQuery = bindOscQuery({ ...services, settings, core, ports, log, listen, oscServer });
  if (oscQuery) {
    ports.oscQuery = oscQuery.port;
    started.push(() => oscQuery.close());
  }
  // The 5.0.0 interface (docs/compat.md), after the 6.0 ports: one that is taken is skipped.
  const v5 = bindV5(main, ports);
  started.push(() => v5.close());
  v5Sockets = () => v5.sockets?.clientCount ?? 0;
  Object.assign(ports, v5.ports);
  core.v5HttpPort = v5.ports.legacyHttp;
  auth.devices.onrevoke = (deviceId) => {
    main.sockets.closeDevice(deviceId);
    oscServer.closeDevice(deviceId);
    oscQuery?.server.closeDevice(deviceId);
    // MIDI asks the registry for each source: a revoked MIDI device is refused from its next message.
    v5.sockets?.closeDevice(deviceId);
  };
  // The handshake once every port is bound: a port in use stops the start before it (main.ts
  // has started the player process already, so it is ready by now).
  supervisor.start();
  started.push(() => supervisor.stop());
  await lock.setPorts(ports, settings.host);
  if (rigs && rigMedia) await startRigs({ rigs, rigMedia, core, log, auth }, settings, started);
  log("debug", `Listening: HTTP ${main.http.addresses}, WebSocket ${main.ws.addresses}`);
  const discovery = settings.mdns ? await advertise(settings, ports, log, rigs) : null;
  if (discovery) started.push(() => discovery.stop());
  return runningService({
    ...main,
    ...{ ports, core, supervisor, oscQuery, discovery, mcp, media, v5, lock, auth, midi },
    ...{ midiSession, timecode: services.timecode, rigs },
  });
}

/**
 * Joins the rig group, once the ports it registers are bound; from then on
 * every edit goes through the group's log (docs/rigs.md, "The show replicated").
 */
async function startRigs(
  parts: { rigs: RigGroup; rigMedia: RigMedia; core: Core; log: Logger; auth: AuthService },
  settings: Pick<Settings, "dataDir" | "groupSnapshotEntries">,
  started: Array<() => Promise<void> | void>,
): Promise<void> {
  const { rigs, rigMedia: media, core, log, auth } = parts;
  // A device pairs once for every rig (docs/rigs.md, "Clients"); the registry's `onrevoke` is set.
  started.push(sharePairings(rigs, auth, log));
  rigs.start();
  started.push(() => rigs.stop());
  await media.start();
  started.push(() => media.stop());
  started.push(
    await replicateEdits(rigs, core.edits, {
      dataDir: settings.dataDir,
      log,
      media,
      snapshotEvery: { entries: settings.groupSnapshotEntries },
    }),
  );
}

/**
 * The rig group of the settings (docs/rigs.md), not started, and its status;
 * none alone, and then no etcd is touched.
 */
function rigGroupOf(
  settings: Settings,
  ports: RunningService["ports"],
  log: Logger,
  core: Core,
): { rigs: RigGroup | null; group: () => GroupStatus; rigMedia: RigMedia | null } {
  const player = {
    frameLagMs: () => core.playerHealth.output?.frameLagMs ?? null,
    shiftClock: (shiftMs: number) => core.shiftPlayerClock(shiftMs),
  };
  const actions = { runner: core.actions, model: core.model, player };
  const rigs = openRigGroup(settings, { ports: () => ({ ...ports }), log, actions });
  const alone = aloneStatus(settings);
  // Its route is mounted with the HTTP port; it starts with the group.
  const probe = (path: string) => core.probeMedia(path);
  const rigMedia = rigs && new RigMedia({ group: rigs, dataDir: settings.dataDir, log, probe });
  return { rigs, group: rigs ? () => rigs.status() : () => alone, rigMedia };
}

/**
 * The network MIDI session (docs/midi.md) on `midiPort` and the next port,
 * unless it is 0 (off): RTP-MIDI (`server/midi/rtp/`) named `midiName`,
 * admitting participants by `midi.admission.admit`, its datagrams taken from
 * the shared budget at the OSC port's rate, inviting the `midiInvite` hosts;
 * null when off or when its ports cannot be bound (logged as one line).
 * @throws {StartupError} for a bad midiInvite entry
 */
function openMidiSession(
  settings: Settings,
  services: Pick<Services, "midi" | "rateLimiter">,
  log: Logger,
): MidiSession | null {
  if (settings.midiPort === 0) return null;
  const { midi, rateLimiter } = services;
  const open = () =>
    new MidiSession({
      port: settings.midiPort,
      hosts: settings.host,
      name: settings.midiName,
      admit: (source) => midi.admission.admit(source),
      invite: settings.midiInvite,
      shared: rateLimiter.meter("datagrams", settings.oscRatePerSecond),
      onEvent: (event) => {
        // A refusal is told by the admission, with the request to approve.
        if (event.type === "joined" || event.type === "left") {
          log("info", `MIDI session: ${midiEventLine(event)}`);
        }
      },
      log,
    });
  try {
    settings.midiInvite.forEach(inviteTarget);
  } catch (error) {
    throw new StartupError(`${(error as Error).message}: fix ${settingHint("midiInvite")}`);
  }
  try {
    return open();
  } catch (error) {
    // Like OSCQuery's, an extra: the show starts without it (rtpmidid, say, holds 5004).
    log("warn", optionalPortLine("MIDI", settings.midiPort, error, "midiPort"));
    return null;
  }
}

/** One line of a participant's joining or leaving, for the log. */
function midiEventLine(event: RtpMidiEvent & { type: "joined" | "left" }): string {
  const p = event.participant;
  const why = event.type === "left" ? ` (${event.reason})` : "";
  return `${p.name} (${p.address}:${p.controlPort}) ${event.type}${why}`;
}

/** The OSC port's worker, started now beside the rest; a failure to bind is told when awaited. */
function openOscPort(
  settings: Settings,
  log: Logger,
  started: Array<() => Promise<void> | void>,
): Promise<UdpPort> {
  const oscOpening = UdpPort.open(settings.host, settings.oscPort, (m, level) => log(level, m));
  oscOpening.catch(() => {}); // handled where it is awaited, whatever fails before that
  started.push(() => oscOpening.then((port) => port.close(), () => {}));
  return oscOpening;
}

/** What the 6.0 ports are bound with. */
interface MainPortsOptions {
  settings: Settings;
  log: Logger;
  core: Core;
  services: Services;
  /** Filled in as the ports are bound. */
  ports: RunningService["ports"];
  startedAt: number;
  started: Array<() => Promise<void> | void>;
  oscOpening: Promise<UdpPort>;
  /** The 5.0.0 port's WebSocket clients, counted in `/api/v1/info`. */
  v5Sockets: () => number;
  /** How this rig stands in its rig group (`server/rigs/`). */
  group: () => GroupStatus;
  /** The rig group's media route (`server/rigs/media_route.ts`); none alone. */
  groupMounts: HttpMount[];
}

/** The 6.0 ports as bound, and what they are made of (`bindMainPorts`). */
type MainPorts = Awaited<ReturnType<typeof bindMainPorts>>;

/**
 * Binds the 6.0 ports, HTTP, WebSocket and OSC, in that order (a port in
 * use stops the start with one line naming its setting), and starts serving
 * OSC; gives what they are made of, which the other ports share.
 */
async function bindMainPorts(o: MainPortsOptions) {
  const { settings, log, core, ports, started } = o;
  const { auth, hosts, rateLimiter, media, httpMeter, mcp } = o.services;
  const clients = (): ClientCounts => ({
    websocket: sockets.clientCount + o.v5Sockets(),
    mcp: mcp.sessionCount,
    osc: oscServer.subscriberCount,
    midi: o.services.midi.participantCount,
  });
  const parts: ListenerParts = {
    core,
    settings,
    log,
    auth,
    hosts,
    rateLimiter,
    media,
    midi: o.services.midi,
    version: VERSION,
    startedAt: o.startedAt,
    group: o.group,
    clients,
  };
  const handleHttp = httpHandlerOf(parts, {
    mounts: [...mcpMounts(mcp), ...o.groupMounts],
    rateLimit: httpMeter,
    ports: () => ports,
  });
  const listen = listenerOf(settings, log);
  const http = await bindPort(
    "HTTP",
    settings,
    () => listen("HTTP", settings.httpPort, handleHttp),
  );
  started.push(() => http.close());
  const sockets = socketServerOf(parts, { pagePort: () => ports.http });
  const oscServer = new OscServer(core, {
    auth,
    rateLimit: rateLimiter.meter("datagrams", settings.oscRatePerSecond),
    allow: settings.oscAllow,
    sendBytesPerSecond: settings.oscSendBytesPerSecond,
    version: VERSION,
    log: (m) => log("info", m),
    logFault: (m) => log("error", m),
  });
  started.push(() => oscServer.close());
  const ws = await bindPort(
    "WebSocket",
    settings,
    () => listen("WebSocket", settings.wsPort, (req, peer) => sockets.handle(req, peer), true),
  );
  started.push(() => ws.close());
  const osc = await bindPort("OSC", settings, () => o.oscOpening);
  // Once the port is bound: a start that fails says one line.
  const bufferAdvice = receiveBufferAdvice(receiveBufferBytes());
  if (bufferAdvice) log("info", bufferAdvice);
  const oscDone = oscServer.serve(osc);
  Object.assign(ports, { http: http.port, ws: ws.port, osc: osc.port });
  return { parts, listen, http, ws, sockets, oscServer, osc, oscDone };
}

/**
 * The 5.0.0 ports (docs/compat.md): the 6.0 ports' engines, over the same
 * core, auth and rate budget, in the 5.0.0 dialects (`server/legacy/`).
 */
function bindV5(main: MainPorts, ports: RunningService["ports"]): V5Listeners {
  const { parts, listen } = main;
  const { settings, rateLimiter } = parts;
  return bindV5Listeners({
    ...{ settings, log: parts.log, version: parts.version, listen },
    successor: () => ports,
    engines: {
      http: (dialect) =>
        httpHandlerOf(parts, {
          rateLimit: rateLimiter.meter("requests", settings.httpRatePerSecond),
          ports: () => ({ ...ports, osc: 0 }),
          dialect,
        }),
      sockets: (dialect) => socketServerOf(parts, { dialect }),
    },
  });
}

/** The player's supervisor and the core over it, logging the player's ups and downs. */
async function openCore(
  settings: Settings,
  log: Logger,
  early: { launcher: PlayerLauncher; playerClock: WatchClock | undefined },
) {
  const supervisor = new PlayerSupervisor(early.launcher, {
    silentMs: settings.playerTimeoutMs,
    stuckMs: settings.playerStuckMs,
    log,
    client: { name: "cueport", version: VERSION },
    forwardEditorEdits: settings.group !== "", // a group's editor page edits through its log
    ...(early.playerClock ? { clock: early.playerClock } : {}),
  });
  const stagingDir = `${settings.dataDir}/uploads`;
  await clearStaging(stagingDir);
  const core = new Core(supervisor, {
    coalesceMs: settings.coalesceMs,
    stagingDir,
    dataDir: settings.dataDir,
  });
  supervisor.ondown = (reason) => log("warn", `Player unavailable: ${reason}`);
  const readyHandler = supervisor.onready;
  supervisor.onready = (snapshot, info) => {
    readyHandler(snapshot, info);
    log("info", `Player ready: ${info.player.name} ${info.player.version} (pid ${supervisor.pid})`);
    // The player's damaged files, at warn, once per player start (its own lines are not forwarded).
    for (const problem of snapshot.problems) log("warn", playerProblemLine(problem));
    if (!snapshot.entitlements.apiAccess) log("warn", NO_API_ACCESS);
  };
  return { supervisor, core };
}

/** What the listeners share (`openServices`). */
type Services = Awaited<ReturnType<typeof openServices>>;

/**
 * Opens what the listeners share: auth (a pairing code it issues is shown
 * by the player), the Host names, the one rate budget, media and MCP.
 */
async function openServices(
  settings: Settings,
  log: Logger,
  core: Core,
  supervisor: PlayerSupervisor,
  started: Array<() => Promise<void> | void>,
) {
  const auth = await openAuth(
    settings.dataDir,
    {
      localhostAuthExempt: settings.localhostAuthExempt,
      tokenLifetimeDays: settings.tokenLifetimeDays,
    },
    {
      askPlayer: (request) => supervisor.request(Method.APPROVAL_REQUEST, request),
      log: (m) => log("warn", m),
    },
  );
  for (const problem of auth.problems) log("warn", authDamageLine(problem));
  auth.codes.onissue = (otp, expiresAt) =>
    void supervisor.request(Method.PAIRING_SHOW, {
      otp,
      expiresAt: new Date(expiresAt).toISOString(),
    })
      .catch(() => {}); // the code works whether or not the application shows it
  const hosts = machineHosts(settings.allowedHosts);
  const rateLimiter = new RateLimiter({
    ratePerSecond: settings.httpRatePerSecond,
    burst: settings.httpBurst,
  });
  const media = new MediaService(core, {
    dataDir: settings.dataDir,
    ffmpeg: settings.ffmpeg === "off" ? null : settings.ffmpeg,
    maxImagePixels: settings.maxImagePixels,
    maxPictureCacheBytes: settings.maxPictureCacheBytes,
    log: (m) => log("warn", m),
  });
  started.push(() => media.close());
  const httpMeter = rateLimiter.meter("requests", settings.httpRatePerSecond);
  const { midi, timecode } = openMidiTransport(settings, log, core, auth, started);
  attachLocalMidi(settings.midiLocal, supervisor, midi);
  const mcp = new LazyMcpEndpoint({
    core,
    auth,
    media,
    midi,
    version: VERSION,
    rateLimit: httpMeter,
    maxBodyBytes: settings.maxBodyBytes,
    maxUploadBytes: settings.maxUploadBytes,
    maxSessions: settings.mcpMaxSessions,
    maxSessionsPerDevice: settings.mcpMaxSessionsPerDevice,
    maxStreamBufferedBytes: settings.mcpMaxBufferedBytes,
    sessionIdleMs: settings.mcpSessionIdleMs,
    log: (m) => log("error", m),
  });
  started.push(() => mcp.close());
  return { auth, hosts, rateLimiter, media, httpMeter, mcp, midi, timecode };
}

/**
 * The MIDI transport over the one policy (`server/midi/`), with the MTC
 * reader of every MIDI source: each sample runs the `timecode` operation as
 * the source that sent it. Its endpoints are attached once the ports are bound.
 */
function openMidiTransport(
  settings: Settings,
  log: Logger,
  core: Core,
  auth: AuthService,
  started: Array<() => Promise<void> | void>,
): { midi: MidiServer; timecode: TimecodeReader } {
  // The reader counts on the player's clock when it is virtual (tests), real time otherwise.
  const clock = new PlayerReaderClock(core.model);
  const timecode = new TimecodeReader({
    clock,
    send: (sample, from) => midi.timecode(sample, from),
  });
  started.push(() => {
    timecode.close();
    clock.close();
  });
  const midi = openMidi(core, {
    devices: auth.devices,
    authenticator: auth.authenticator,
    isLocalhostExempt: settings.localhostAuthExempt,
    allow: settings.midiAllow,
    feedback: settings.midiFeedback,
    timecode,
    log: (m) => log("info", m),
    logFault: (m) => log("error", m),
  });
  started.push(() => midi.close());
  return { midi, timecode };
}

/**
 * The output's local MIDI ports (`server/midi/local.ts`, setting midiLocal): what the player
 * relays from its output's Web MIDI, and feedback sent back through it. Off: none attached.
 */
function attachLocalMidi(
  setting: Settings["midiLocal"],
  supervisor: PlayerSupervisor,
  midi: MidiServer,
): void {
  if (setting === false) return;
  const local = new LocalMidi({
    ports: setting,
    send: (params) => supervisor.request(Method.MIDI_SEND, params),
  });
  supervisor.onmidi = (params) => local.take(params);
  midi.attach(local);
}

/** What `runningService` stops, in order. */
interface RunningParts {
  auth: AuthService;
  ports: RunningService["ports"];
  core: Core;
  supervisor: PlayerSupervisor;
  sockets: SocketServer;
  oscServer: OscServer;
  osc: UdpPort;
  oscDone: Promise<void>;
  oscQuery: { server: OscQueryServer; close(): Promise<void> } | null;
  discovery: Discovery | null;
  mcp: LazyMcpEndpoint;
  media: MediaService;
  midi: MidiServer;
  midiSession: MidiSession | null;
  rigs: RigGroup | null;
  timecode: TimecodeReader;
  http: ConnectionServer;
  ws: ConnectionServer;
  v5: { close(): Promise<void> };
  lock: InstanceLock;
}

/** The running service: its parts, and a shutdown that stops them in order. */
function runningService(p: RunningParts): RunningService {
  const { ports, core, supervisor, sockets, discovery, mcp, media, oscServer, osc, oscQuery } = p;
  return {
    ports,
    core,
    supervisor,
    sockets,
    osc: oscServer,
    oscQuery: oscQuery?.server ?? null,
    discovery,
    mcp,
    midi: p.midi,
    midiSession: p.midiSession,
    rigs: p.rigs,
    problems: () => [...core.model.problems, ...p.auth.problems],
    async shutdown() {
      await discovery?.stop(); // goodbyes first, while the ports still answer
      sockets.close();
      mcp.close();
      p.midi.close();
      p.timecode.close();
      const midiClosed = p.midiSession?.close();
      const mediaClosed = media.close();
      oscServer.close();
      const oscClosed = osc.close();
      await Promise.all([
        p.http.close(),
        p.ws.close(),
        oscClosed,
        p.oscDone,
        oscQuery?.close(),
        p.v5.close(),
        mediaClosed,
        midiClosed,
      ]);
      await supervisor.stop();
      core.close();
      p.lock.release();
    },
  };
}

/** What the OSCQuery port is made of. */
interface OscQueryParts {
  settings: Settings;
  core: Core;
  oscServer: OscServer;
  ports: RunningService["ports"];
  log: Logger;
  listen: Listen;
  auth: AuthService;
  hosts: ReadonlySet<string>;
  rateLimiter: RateLimiter;
  httpMeter: RateMeter;
}

/**
 * The OSCQuery server on its port, behind the same connection server and
 * checks as the HTTP port; null when off or when its port cannot be bound
 * (logged as one line).
 */
function bindOscQuery(
  parts: OscQueryParts,
): { server: OscQueryServer; port: number; close(): Promise<void> } | null {
  const { settings, ports, log } = parts;
  const port = settings.oscQueryPort;
  if (port === null) return null;
  const server = new OscQueryServer(parts.core, {
    oscPort: () => ports.osc,
    grantOf: (address) => parts.oscServer.grantOf(address),
    authenticator: parts.auth.authenticator,
    hosts: parts.hosts,
    origins: settings.corsOrigins,
    pagePort: () => ports.http,
    requestRate: parts.httpMeter,
    messageRate: parts.rateLimiter.meter("messages", settings.wsRatePerSecond),
    limits: {
      maxBufferedBytes: settings.oscQueryMaxBufferedBytes,
      lagCloseMs: settings.wsLagCloseMs,
    },
    log: (m) => log("error", m),
  });
  let connections: ConnectionServer;
  try {
    // The WebSocket engine: each connection carries one request, which may upgrade.
    connections = parts.listen("OSCQuery", port, (req, peer) => server.handle(req, peer), true);
  } catch (error) {
    server.close();
    log("warn", optionalPortLine("OSCQuery", port, error, "oscQueryPort"));
    return null;
  }
  return {
    server,
    port: connections.port,
    close: async () => {
      server.close();
      await connections.close();
    },
  };
}

/** Advertises the bound ports by mDNS/DNS-SD; `ports.oscQuery`, when set, as `_oscjson._tcp`. */
function advertise(
  settings: Settings,
  ports: RunningService["ports"],
  log: Logger,
  rigs: RigGroup | null,
): Promise<Discovery> {
  // A rig of a group says its group, its name and whether it leads (docs/discovery.md).
  const group = rigs && (() => {
    const { group, rig, isLeader } = rigs.status();
    return group === null ? null : { group, rig, isLeader };
  });
  return startDiscovery({
    group: group ?? undefined,
    serviceName: settings.serviceName,
    // The network MIDI session's control port as `_apple-midi._udp`, when it runs.
    ports: { ...ports, appleMidi: ports.midi ?? undefined },
    hosts: settings.host,
    apiVersion: API_VERSION,
    appVersion: VERSION,
    wsPath: "/v1",
    log,
  });
}
