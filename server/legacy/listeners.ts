/**
 * Binds the 5.0.0 interface (this folder) on its ports (settings
 * `legacyHttpPort`, `legacyWsPort`), after the 6.0 ports: the engines the
 * 6.0 ports are made of, speaking the 5.0.0 dialects. The composition root
 * (`server/service.ts`) hands the engines in (`V5Engines`), so this folder
 * imports no other transport and nothing of the composition. A 5.0.0 port
 * that cannot be bound is a warning and that listener is skipped: two
 * instances on one machine (a test run, a backup) still start.
 * @module
 */
import { UsageLog } from "./deprecation.ts";
import { v5HttpDialect } from "./http.ts";
import { v5WsDialect } from "./ws.ts";
import type { HttpDialect, WsDialect } from "../net/dialect.ts";
import type { ConnectionServer, PeerHandler } from "../net/mod.ts";
import type { Settings } from "../config.ts";
import type { Logger } from "../log.ts";
import { optionalPortLine } from "../startup.ts";

/** What the 5.0.0 port needs of a WebSocket engine. */
export interface V5SocketServer {
  handle: PeerHandler;
  /** Its clients now (`/api/v1/info` counts them). */
  readonly clientCount: number;
  /** Closes the connections of a revoked device. */
  closeDevice(deviceId: string): void;
  close(): void;
}

/** The engines of the 6.0 ports, made for another dialect, with the same core, auth and budgets. */
export interface V5Engines {
  /** The HTTP engine speaking `dialect`. */
  http(dialect: HttpDialect): PeerHandler;
  /** The WebSocket engine speaking `dialect`. */
  sockets(dialect: WsDialect): V5SocketServer;
}

/** What the 5.0.0 listeners are bound with, and where 5.0.0 clients are pointed. */
export interface V5ListenerOptions {
  settings: Pick<Settings, "legacyHttpPort" | "legacyWsPort">;
  log: Logger;
  /** The app's version (its `/api/info`). */
  version: string;
  /** The 6.0 ports, once bound (where 5.0.0 clients are pointed). */
  successor: () => { http: number; ws: number };
  /** Binds a port with the service's connection budgets. */
  listen: (
    name: string,
    port: number,
    handler: PeerHandler,
    isWebSocket?: boolean,
  ) => ConnectionServer;
  engines: V5Engines;
}

/** The bound 5.0.0 listeners. */
export interface V5Listeners {
  /** The bound ports; null where off or skipped. */
  ports: { legacyHttp: number | null; legacyWs: number | null };
  /** The 5.0.0 WebSocket clients (revocation closes theirs too). */
  sockets: V5SocketServer | null;
  close(): Promise<void>;
}

/** Binds one optional listener; a port that cannot be bound is logged and skipped. */
function bindOptional(
  o: V5ListenerOptions,
  setting: "legacyHttpPort" | "legacyWsPort",
  name: string,
  bind: (port: number) => ConnectionServer,
): ConnectionServer | null {
  const port = o.settings[setting];
  if (port === "off") return null;
  try {
    return bind(port);
  } catch (error) {
    o.log("warn", optionalPortLine(name, port, error, setting));
    return null;
  }
}

/** Binds the 5.0.0 HTTP and WebSocket ports over the same core, auth and rate budget. */
export function bindV5Listeners(o: V5ListenerOptions): V5Listeners {
  const usage = new UsageLog((m) => o.log("info", m));
  const ports: V5Listeners["ports"] = { legacyHttp: null, legacyWs: null };
  const own = () => ({ http: ports.legacyHttp ?? 0, ws: ports.legacyWs });
  const http = bindOptional(o, "legacyHttpPort", "5.0.0 HTTP", (port) =>
    o.listen(
      "5.0.0 HTTP",
      port,
      o.engines.http(
        v5HttpDialect({ version: o.version, ports: own, successor: o.successor, usage }),
      ),
    ));
  let sockets: V5SocketServer | null = null;
  const ws = bindOptional(o, "legacyWsPort", "5.0.0 WebSocket", (port) => {
    const server = o.engines.sockets(
      v5WsDialect({ version: o.version, successor: o.successor, usage }),
    );
    try {
      const bound = o.listen(
        "5.0.0 WebSocket",
        port,
        (req, peer) => server.handle(req, peer),
        true,
      );
      sockets = server;
      return bound;
    } catch (error) {
      server.close(); // it subscribed to the bus
      throw error;
    }
  });
  ports.legacyHttp = http?.port ?? null;
  ports.legacyWs = ws?.port ?? null;
  return {
    ports,
    sockets,
    async close() {
      sockets?.close();
      await Promise.all([http?.close(), ws?.close()]);
    },
  };
}
