/**
 * The deprecation of the 5.0.0 interface (docs/compat.md, "Deprecation
 * policy"): how a client learns it (HTTP headers, a field of the WebSocket
 * `connected` event, `/api/info`) and how the operator learns who still uses
 * it (one log line per address).
 * @module
 */

/** The day 5.0.0 became deprecated: the first release serving 6.0 (Cueport 0.1.0). */
export const DEPRECATED_SINCE = "2026-11-23";

/** The earliest day the 5.0.0 listeners may go off by default (docs/compat.md). */
export const SUNSET = "2027-12-31";

/** A 5.0.0 token lives 30 days (spec section 9), whatever `tokenLifetimeDays` says. */
export const V5_TOKEN_LIFETIME_SECONDS = 30 * 86_400;

/** The 6.0 ports, once bound: where a 5.0.0 client should move. */
export type SuccessorPorts = () => { http: number; ws: number };

/** What a client reads of the deprecation (WebSocket `connected`, `/api/info`). */
export function deprecationNotice(ports: SuccessorPorts): {
  deprecated: true;
  since: string;
  sunset: string;
  successor: { apiVersion: "6.0"; httpPort: number; wsPort: number; websocketPath: "/v1" };
  docs: string;
} {
  const { http, ws } = ports();
  return {
    deprecated: true,
    since: DEPRECATED_SINCE,
    sunset: SUNSET,
    successor: { apiVersion: "6.0", httpPort: http, wsPort: ws, websocketPath: "/v1" },
    docs: "docs/compat.md",
  };
}

const SINCE_SECONDS = Date.parse(`${DEPRECATED_SINCE}T00:00:00Z`) / 1000;
const SUNSET_HTTP_DATE = new Date(`${SUNSET}T23:59:59Z`).toUTCString();

/** The host a request named, without its port (for the successor's address). */
function hostOf(request: Request): string {
  const host = request.headers.get("host") ?? "localhost";
  const bracket = host.match(/^\[[^\]]+\]/);
  return bracket ? bracket[0] : host.replace(/:\d+$/, "");
}

/**
 * The headers of every 5.0.0 HTTP answer: `Deprecation` (RFC 9745, the
 * date as `@<seconds>`), `Sunset` (RFC 8594) and a `Link` to the 6.0
 * interface (`successor-version`).
 */
export function deprecationHeaders(
  request: Request,
  ports: SuccessorPorts,
): Record<string, string> {
  return {
    deprecation: `@${SINCE_SECONDS}`,
    sunset: SUNSET_HTTP_DATE,
    link: `<http://${hostOf(request)}:${ports().http}/api/v1/info>; rel="successor-version"`,
  };
}

/** Most addresses remembered; past it the oldest are forgotten (and logged again if they return). */
const MAX_ADDRESSES = 1000;

/** Logs each address that uses the 5.0.0 interface, once: the operator learns who to upgrade. */
export class UsageLog {
  #seen = new Set<string>();
  #log: (message: string) => void;

  /** `log` gets one line per new address. */
  constructor(log: (message: string) => void) {
    this.#log = log;
  }

  /** Notes a use by `address` (`what`: `HTTP`, `WebSocket`). */
  seen(address: string, what: string): void {
    const key = `${what} ${address}`;
    if (this.#seen.has(key)) return;
    if (this.#seen.size >= MAX_ADDRESSES) this.#seen.delete(this.#seen.values().next().value!);
    this.#seen.add(key);
    this.#log(
      `A client at ${address} uses the deprecated 5.0.0 ${what} interface (docs/compat.md; ` +
        `sunset ${SUNSET})`,
    );
  }
}
