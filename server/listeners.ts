/**
 * The listener factories the 6.0 ports and the 5.0.0 ports share
 * (`service.ts` makes both, and hands the 5.0.0 ones to
 * `legacy/listeners.ts`): the HTTP handler and the WebSocket server as the
 * settings make them, and the connection server every TCP port is bound
 * with. A port differs from another only in its dialect and what it mounts.
 * Composition, like `service.ts`: it may import every transport.
 * @module
 */
import type { Settings } from "./config.ts";
import type { Logger } from "./log.ts";
import type { Core, MediaSource, MidiService } from "./core/mod.ts";
import type { AuthService } from "./auth/service.ts";
import type { RateLimiter } from "./auth/rate_limit.ts";
import { isLocalAddress } from "./auth/mod.ts";
import { createHttpHandler, type HttpAppOptions } from "./routes/mod.ts";
import type { ClientCounts, ServicePorts } from "./routes/info.ts";
import { SocketServer, type SocketServerOptions } from "./socket/mod.ts";
import { ConnectionServer, type PeerHandler } from "./net/mod.ts";
import type { GroupStatus } from "../protocol/rigs.ts";

/** What every listener of one service is made of. */
export interface ListenerParts {
  core: Core;
  settings: Settings;
  log: Logger;
  auth: AuthService;
  hosts: ReadonlySet<string>;
  rateLimiter: RateLimiter;
  media: MediaSource;
  /** The MIDI transport, for the MIDI routes. */
  midi?: MidiService;
  version: string;
  startedAt: number;
  /** How this rig stands in its rig group (`server/rigs/`). */
  group: () => GroupStatus;
  /** The clients connected now (`/api/v1/info`). */
  clients: () => ClientCounts;
}

/** Binds a TCP port with the service's connection budgets. */
export type Listen = (
  name: string,
  port: number,
  handler: PeerHandler,
  isWebSocket?: boolean,
) => ConnectionServer;

/** The `listen` of a service: its hosts, its connection budgets, its log. */
export function listenerOf(settings: Settings, log: Logger): Listen {
  const limits = {
    maxConnections: settings.maxConnections,
    maxConnectionsPerAddress: settings.maxConnectionsPerAddress,
    localReserve: settings.localConnectionReserve,
    headerTimeoutMs: settings.headerTimeoutMs,
    keepAliveTimeoutMs: settings.keepAliveTimeoutMs,
  };
  return (name, port, handler, isWebSocket = false) =>
    ConnectionServer.listen({
      isWebSocket,
      name,
      hosts: settings.host,
      port,
      limits,
      isLocal: isLocalAddress,
      handler,
      log,
    });
}

/** An HTTP handler over the core as the settings make it; `port` gives what differs. */
export function httpHandlerOf(
  parts: ListenerParts,
  port: Pick<HttpAppOptions, "rateLimit" | "dialect" | "mounts"> & {
    ports: () => ServicePorts;
  },
): ReturnType<typeof createHttpHandler> {
  const { settings } = parts;
  return createHttpHandler(parts.core, {
    ...port,
    media: parts.media,
    ...(parts.midi ? { midi: parts.midi } : {}),
    auth: parts.auth,
    hosts: parts.hosts,
    version: parts.version,
    startedAt: parts.startedAt,
    group: parts.group,
    clients: parts.clients,
    corsOrigins: settings.corsOrigins,
    maxUploadBytes: settings.maxUploadBytes,
    uploadIdleTimeoutMs: settings.uploadIdleTimeoutMs,
    maxBodyBytes: settings.maxBodyBytes,
    maxUnauthenticatedBodyBytes: settings.maxUnauthenticatedBodyBytes,
    log: (m) => parts.log("error", m),
  });
}

/** A WebSocket server over the core as the settings make it; `port` gives what differs. */
export function socketServerOf(
  parts: ListenerParts,
  port: Pick<SocketServerOptions, "dialect" | "pagePort">,
): SocketServer {
  const { settings } = parts;
  return new SocketServer(parts.core, {
    ...port,
    authenticator: parts.auth.authenticator,
    hosts: parts.hosts,
    origins: settings.corsOrigins,
    version: parts.version,
    rateLimit: parts.rateLimiter.meter("messages", settings.wsRatePerSecond),
    limits: {
      maxMessageBytes: settings.wsMaxMessageBytes,
      maxBufferedBytes: settings.wsMaxBufferedBytes,
      lagCloseMs: settings.wsLagCloseMs,
      authTimeoutMs: settings.wsAuthTimeoutMs,
      unauthenticatedMaxBufferedBytes: settings.wsUnauthenticatedMaxBufferedBytes,
    },
    log: (m) => parts.log("warn", m),
    logFault: (m) => parts.log("error", m),
  });
}
