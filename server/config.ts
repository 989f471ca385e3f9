/**
 * Service settings from, in rising precedence: defaults, a JSON config file,
 * `CUEPORT_*` environment variables, command-line flags.
 * @module
 */
import { parseArgs } from "node:util";
import { z } from "zod";

const Port = z.coerce.number().int().min(0).max(65535);

/** Every setting, with its default. */
export const Settings = z.object({
  dataDir: z.string().min(1),
  /** Addresses to bind; the default serves IPv4 and IPv6 on every interface. */
  host: z.preprocess(
    (v) => typeof v === "string" ? v.split(",").map((h) => h.trim()).filter(Boolean) : v,
    z.array(z.string().min(1)).min(1),
  ).default(["::", "0.0.0.0"]),
  httpPort: Port.default(17736),
  wsPort: Port.default(17734),
  oscPort: Port.default(17735),
  logLevel: z.enum(["debug", "info", "warn", "error"]).default("info"),
  plan: z.enum(["pro", "free"]).default("pro"),
  /** An external player command (program and arguments); empty runs the bundled player. */
  playerCommand: z.array(z.string()).default([]),
  playerTimeoutMs: z.coerce.number().int().positive().default(5000),
  virtualClock: z.boolean().default(false),
  positionIntervalMs: z.coerce.number().int().min(0).default(250),
  coalesceMs: z.coerce.number().int().min(0).default(5),
  /** Browser origins allowed to call the API (CORS); `*` allows any. */
  corsOrigins: z.array(z.string()).default([]),
  /** Largest WebSocket message accepted, bytes. */
  wsMaxMessageBytes: z.coerce.number().int().positive().default(64 * 1024),
  /** Messages per second one WebSocket client may send (token bucket), and the burst. */
  wsRatePerSecond: z.coerce.number().positive().default(50_000),
  wsBurst: z.coerce.number().int().positive().default(50_000),
  /** Unsent bytes above which a WebSocket client counts as lagging. */
  wsMaxBufferedBytes: z.coerce.number().int().positive().default(4 * 1024 * 1024),
  /** A WebSocket client lagging this long is closed. */
  wsLagCloseMs: z.coerce.number().int().positive().default(10_000),
  /** Clients on 127.0.0.1 and ::1 need no token. */
  localhostAuthExempt: z.union([
    z.boolean(),
    z.enum(["true", "false"]).transform((v) => v === "true"),
  ])
    .default(true),
  /** Extra names this machine answers to in the Host header (beyond its hostname and addresses). */
  allowedHosts: z.array(z.string()).default([]),
  /** HTTP requests per second per remote address, and the burst (local clients are not limited). */
  httpRatePerSecond: z.coerce.number().positive().default(200),
  httpBurst: z.coerce.number().int().positive().default(400),
  /** How the bundled player answers approval of local WebSocket clients without credentials. */
  approval: z.enum(["approve", "deny", "wait"]).default("approve"),
  /** Lifetime of device tokens, days. */
  tokenLifetimeDays: z.coerce.number().positive().default(30),
  /** Undo steps kept per Project. */
  historyLimit: z.coerce.number().int().min(1).max(10_000).default(100),
  /** Largest upload accepted, bytes. */
  maxUploadBytes: z.coerce.number().int().positive().default(2 * 1024 ** 3),
  /** Open connections per port (HTTP, WebSocket) for remote clients. */
  maxConnections: z.coerce.number().int().positive().default(512),
  /** Open connections per remote address and port. */
  maxConnectionsPerAddress: z.coerce.number().int().positive().default(64),
  /** Connections per port kept for local clients once remote ones fill `maxConnections`. */
  localConnectionReserve: z.coerce.number().int().min(1).default(64),
  /** Deadline to read a request's headers (and a JSON body after them), ms. */
  headerTimeoutMs: z.coerce.number().int().positive().default(10_000),
  /** An idle keep-alive connection is closed after this long, ms. */
  keepAliveTimeoutMs: z.coerce.number().int().positive().default(15_000),
  /** An upload that sends no byte for this long is ended (408), ms. */
  uploadIdleTimeoutMs: z.coerce.number().int().positive().default(30_000),
  /**
   * Largest JSON body of an authenticated (or local) request, bytes; at most 8 MiB, so an
   * edit always fits the bundled player's 16 MiB request line (docs/player-protocol.md).
   */
  maxBodyBytes: z.coerce.number().int().positive().max(8 * 1024 * 1024).default(1024 * 1024),
  /** Largest body of a remote request without a valid token (a pairing request is tiny), bytes. */
  maxUnauthenticatedBodyBytes: z.coerce.number().int().positive().default(16 * 1024),
  /** A WebSocket client must authenticate within this long, ms. */
  wsAuthTimeoutMs: z.coerce.number().int().positive().default(10_000),
  /** Unsent bytes allowed to a WebSocket client that has not authenticated. */
  wsUnauthenticatedMaxBufferedBytes: z.coerce.number().int().positive().default(64 * 1024),
});
/** Every setting, with its default. */
export type Settings = z.infer<typeof Settings>;

/** The flags of `cueport serve`, with their setting names. */
const FLAGS = {
  "data-dir": { type: "string", setting: "dataDir" },
  host: { type: "string", setting: "host" },
  "http-port": { type: "string", setting: "httpPort" },
  "ws-port": { type: "string", setting: "wsPort" },
  "osc-port": { type: "string", setting: "oscPort" },
  "log-level": { type: "string", setting: "logLevel" },
  plan: { type: "string", setting: "plan" },
  "player-command": { type: "string", setting: "playerCommand" },
  "player-timeout": { type: "string", setting: "playerTimeoutMs" },
  "virtual-clock": { type: "boolean", setting: "virtualClock" },
  "position-interval": { type: "string", setting: "positionIntervalMs" },
  "coalesce-ms": { type: "string", setting: "coalesceMs" },
  "cors-origin": { type: "string", setting: "corsOrigins" },
  "ws-rate": { type: "string", setting: "wsRatePerSecond" },
  "ws-burst": { type: "string", setting: "wsBurst" },
  "ws-max-message": { type: "string", setting: "wsMaxMessageBytes" },
  "ws-max-buffered": { type: "string", setting: "wsMaxBufferedBytes" },
  "ws-lag-close": { type: "string", setting: "wsLagCloseMs" },
  "localhost-auth-exempt": { type: "string", setting: "localhostAuthExempt" },
  "token-lifetime-days": { type: "string", setting: "tokenLifetimeDays" },
  "allowed-host": { type: "string", setting: "allowedHosts" },
  "http-rate": { type: "string", setting: "httpRatePerSecond" },
  approval: { type: "string", setting: "approval" },
  "history-limit": { type: "string", setting: "historyLimit" },
  "max-upload": { type: "string", setting: "maxUploadBytes" },
  "http-burst": { type: "string", setting: "httpBurst" },
  "max-connections": { type: "string", setting: "maxConnections" },
  "max-connections-per-address": { type: "string", setting: "maxConnectionsPerAddress" },
  "local-connection-reserve": { type: "string", setting: "localConnectionReserve" },
  "header-timeout": { type: "string", setting: "headerTimeoutMs" },
  "keep-alive-timeout": { type: "string", setting: "keepAliveTimeoutMs" },
  "upload-idle-timeout": { type: "string", setting: "uploadIdleTimeoutMs" },
  "max-body": { type: "string", setting: "maxBodyBytes" },
  "max-unauthenticated-body": { type: "string", setting: "maxUnauthenticatedBodyBytes" },
  "ws-auth-timeout": { type: "string", setting: "wsAuthTimeoutMs" },
  "ws-unauthenticated-max-buffered": {
    type: "string",
    setting: "wsUnauthenticatedMaxBufferedBytes",
  },
} as const;

/** Environment variable for each setting: `CUEPORT_` and the name in upper snake case. */
export function envName(setting: string): string {
  return "CUEPORT_" + setting.replace(/[A-Z]/g, (c) => "_" + c).toUpperCase();
}

/** Usage text of `cueport serve`. */
export const SERVE_USAGE = `Usage: cueport [serve] [options]
       cueport player [options]     (the bundled player; started by the service)
       cueport pair | devices | revoke DEVICE_ID [--http-port N]   (operator commands)

Starts the Cueport service: HTTP on 17736, WebSocket on 17734, OSC on UDP 17735.
Options (each also CUEPORT_<NAME> in the environment, or a key of the --config file):
  --data-dir DIR           projects and settings (default: the user data dir)
  --host LIST              addresses to bind, comma-separated (default ::,0.0.0.0: IPv6 and IPv4)
  --http-port N            HTTP port (default 17736; 0 picks a free port)
  --ws-port N              WebSocket port (default 17734; 0 picks a free port)
  --osc-port N             OSC UDP port (default 17735; 0 picks a free port)
  --config FILE            JSON file of settings (camelCase keys)
  --log-level LEVEL        debug, info, warn or error (default info)
  --plan pro|free          the bundled player's plan (free has no API access)
  --player-command CMD     run an external player instead (JSON array or a plain command)
  --player-timeout MS      player request timeout (default 5000)
  --position-interval MS   position reports while playing (default 250; 0 off)
  --coalesce-ms MS         state-update coalescing window (default 5)
  --cors-origin LIST       browser origins allowed to call the API, comma-separated (* for any)
  --ws-rate N, --ws-burst N        WebSocket messages per second per client, and burst (50000)
  --ws-max-message BYTES   largest WebSocket message (65536)
  --ws-max-buffered BYTES  unsent bytes before a client counts as lagging (4194304)
  --ws-lag-close MS        close a client lagging this long (10000)
  --localhost-auth-exempt true|false   local clients need no token (default true)
  --token-lifetime-days N  lifetime of device tokens (default 30)
  --allowed-host LIST      extra names of this machine accepted in the Host header, comma-separated
  --http-rate N, --http-burst N    HTTP requests per second per remote address, and burst (200, 400)
  --approval MODE          local WebSocket clients without credentials: approve (default), deny, wait
  --history-limit N        undo steps kept per Project (default 100)
  --max-upload BYTES       largest media upload (default 2147483648, 2 GiB)
  --max-connections N      open connections per port for remote clients (512)
  --max-connections-per-address N  open connections per remote address and port (64)
  --local-connection-reserve N     connections per port kept for local clients (64)
  --header-timeout MS      deadline to read a request's headers and JSON body (10000)
  --keep-alive-timeout MS  close an idle keep-alive connection after this long (15000)
  --upload-idle-timeout MS end an upload that sends nothing for this long (30000)
  --max-body BYTES         largest JSON body (1048576; at most 8388608)
  --max-unauthenticated-body BYTES  largest body of a remote request without a token (16384)
  --ws-auth-timeout MS     a WebSocket client must authenticate within this long (10000)
  --ws-unauthenticated-max-buffered BYTES  unsent bytes allowed before auth (65536)
  --virtual-clock          run the player on a virtual clock (tests only)
  --help                   show this help`;

/** The default data dir for this platform. */
export function defaultDataDir(): string {
  const env = (name: string) => Deno.env.get(name);
  const home = env("HOME") ?? env("USERPROFILE") ?? ".";
  switch (Deno.build.os) {
    case "windows":
      return `${env("APPDATA") ?? home}\\Cueport`;
    case "darwin":
      return `${home}/Library/Application Support/Cueport`;
    default:
      return `${env("XDG_DATA_HOME") ?? `${home}/.local/share`}/cueport`;
  }
}

function parseCommand(value: string): string[] {
  const text = value.trim();
  if (text.startsWith("[")) return z.array(z.string()).parse(JSON.parse(text));
  return text.split(/\s+/).filter(Boolean);
}

/** Result of reading the command line. */
export type LoadedSettings = { help: true } | { help: false; settings: Settings };

/**
 * Reads settings from `args`, the environment and the config file.
 * @throws {Error} with a message naming the bad setting
 */
export async function loadSettings(
  args: string[],
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
): Promise<LoadedSettings> {
  const options: Record<string, { type: "string" | "boolean" }> = {
    config: { type: "string" },
    help: { type: "boolean" },
  };
  for (const [flag, def] of Object.entries(FLAGS)) options[flag] = { type: def.type };
  const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
  if (values.help) return { help: true };

  const raw: Record<string, unknown> = {};
  const configPath = (values.config as string | undefined) ?? env("CUEPORT_CONFIG");
  if (configPath) {
    let text: string;
    try {
      text = await Deno.readTextFile(configPath);
    } catch (error) {
      throw new Error(`Cannot read config file "${configPath}": ${(error as Error).message}`);
    }
    try {
      Object.assign(raw, JSON.parse(text));
    } catch {
      throw new Error(`Cannot parse config file "${configPath}": not valid JSON`);
    }
  }
  for (const def of Object.values(FLAGS)) {
    const value = env(envName(def.setting));
    if (value !== undefined && value !== "") {
      raw[def.setting] = def.type === "boolean"
        ? ["1", "true", "yes"].includes(value.toLowerCase())
        : value;
    }
  }
  for (const [flag, def] of Object.entries(FLAGS)) {
    if (values[flag] !== undefined) raw[def.setting] = values[flag];
  }
  if (typeof raw.playerCommand === "string") raw.playerCommand = parseCommand(raw.playerCommand);
  for (const key of ["corsOrigins", "allowedHosts"]) {
    if (typeof raw[key] === "string") {
      raw[key] = raw[key].split(",").map((o) => o.trim()).filter(Boolean);
    }
  }
  raw.dataDir ??= defaultDataDir();
  const parsed = Settings.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const setting = String(issue.path[0] ?? "");
    const flag = Object.entries(FLAGS).find(([, def]) => def.setting === setting)?.[0];
    const where = flag ? ` (--${flag} or ${envName(setting)})` : "";
    throw new Error(`Invalid setting ${issue.path.join(".")}${where}: ${issue.message}`);
  }
  return { help: false, settings: parsed.data };
}
