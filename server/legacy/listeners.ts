/**
 * Composes the 5.0.0 interface (this folder) onto the HTTP and WebSocket
 * engines, through the listener factories the 6.0 ports use
 * (`server/listeners.ts`), and binds its ports (settings `legacyHttpPort`,
 * `legacyWsPort`), after the 6.0 ports. A 5.0.0 port that cannot be bound
 * is a warning and that listener is skipped: two instances on one machine
 * (a test run, a backup) still start.
 * @module
 */
import { UsageLog } from "./deprecation.ts";
import { v5HttpDialect } from "./http.ts";
import { v5WsDialect } from "./ws.ts";
import type { ConnectionServer } from "../net/mod.ts";
import { httpHandlerOf, type Listen, type ListenerParts, socketServerOf } from "../listeners.ts";
import { optionalPortLine } from "../startup.ts";

/** The WebSocket engine's server (named through the factory: no transport imports another). */
type SocketServer = ReturnType<typeof socketServerOf>;

/** What the 5.0.0 listeners share with the 6.0 ones, and where 5.0.0 clients are pointed. */
export interface V5ListenerOptions extends ListenerParts {
  /** The 6.0 ports, once bound (where 5.0.0 clients are pointed). */
  successor: () => { http: number; ws: number };
  /** Binds a port with the service's connection budgets. */
  listen: Listen;
}

/** The bound 5.0.0 listeners. */
export interface V5Listeners {
  /** The bound ports; null where off or skipped. */
  ports: { legacyHttp: number | null; legacyWs: number | null };
  /** The 5.0.0 WebSocket clients (revocation closes theirs too). */
  sockets: SocketServer | null;
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
  const { settings } = o;
  const usage = new UsageLog((m) => o.log("info", m));
  const ports: V5Listeners["ports"] = { legacyHttp: null, legacyWs: null };
  const own = () => ({ http: ports.legacyHttp ?? 0, ws: ports.legacyWs });
  const http = bindOptional(o, "legacyHttpPort", "5.0.0 HTTP", (port) =>
    o.listen(
      "5.0.0 HTTP",
      port,
      httpHandlerOf(o, {
        rateLimit: o.rateLimiter.meter("requests", settings.httpRatePerSecond),
        ports: () => ({ ...o.successor(), osc: 0 }),
        dialect: v5HttpDialect({ version: o.version, ports: own, successor: o.successor, usage }),
      }),
    ));
  let sockets: SocketServer | null = null;
  const ws = bindOptional(o, "legacyWsPort", "5.0.0 WebSocket", (port) => {
    const server = socketServerOf(o, {
      dialect: v5WsDialect({ version: o.version, successor: o.successor, usage }),
    });
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
