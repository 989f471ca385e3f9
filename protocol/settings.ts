/**
 * Every setting of Cueport, declared once: its schema (type, range and
 * default), its flag, the help line and the README's default column. The
 * service's settings, flags, environment variables, config-file keys and
 * `--help` (`server/config.ts`), the bundled player's flags (`player/mod.ts`)
 * and the settings table of docs/settings.md (`tools/settings_doc.ts`) all come
 * from this table.
 * @module
 */
import { z } from "zod";
import { parseSubnets } from "./subnets.ts";
import { PRIMARY_DISPLAY } from "./action_rules.ts";
import { FULL_REGION_TEXT, RegionText } from "./region.ts";
import { RigName } from "./rigs.ts";

/** One setting. */
export interface SettingSpec {
  schema: z.ZodType;
  /** The command-line flag, without `--`. */
  flag: string;
  /** The flag's value in `--help` (`N`, `MS`, `DIR`...); none for a boolean switch. */
  value?: string;
  /** One line for `--help`. */
  help: string;
  /** The README's "Default" column: the default and what the setting does. */
  doc: string;
}

/**
 * A number as a flag, variable or config file gives it: a number, or text that is one. Empty or
 * blank text, `null`, a switch or a list stay what they are and are refused (`Number("")`,
 * `Number(null)` and `Number([80])` would make them 0 or 80: a port nobody asked for).
 */
function asNumber(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  const number = Number(text);
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) && Number.isFinite(number)
    ? number
    : value;
}

/**
 * A whole-number setting from `min` (to `max`), from a number or text that is one; whatever it
 * refuses, it says the one range it takes ("expected a whole number from 0 to 65535").
 */
function wholeNumber(min: number, max?: number) {
  const error = max === undefined
    ? `expected a whole number of ${min} or more`
    : `expected a whole number from ${min} to ${max}`;
  const schema = z.number({ error }).int({ error }).min(min, { error });
  return z.preprocess(asNumber, max === undefined ? schema : schema.max(max, { error }));
}

/** A setting that is a number above 0 (a rate), from a number or text that is one. */
function positiveNumber() {
  const error = "expected a number above 0";
  return z.preprocess(asNumber, z.number({ error }).positive({ error }));
}

const Port = wholeNumber(0, 65535);
/** A port of an optional listener: a number (0 picks a free one), or `off`. */
const OptionalPort = z.union([z.literal("off"), Port]);
const positiveInt = (max?: number) => wholeNumber(1, max);
/** A comma-separated list in a flag or variable, an array in the config file. */
const list = (min = 0) =>
  z.preprocess(
    (v) => typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v,
    z.array(z.string().min(1)).min(min),
  );
/** An allow list (`setting` names it): addresses or subnets, each checked (`protocol/subnets.ts`). */
const subnetList = (setting: string) =>
  list().superRefine((entries, ctx) => {
    try {
      parseSubnets(entries, setting);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message.replace(/^\w+: /, "") });
    }
  });
/** etcd client URLs: `http://` or `https://`, a host, a port if any, nothing after. */
const endpointList = () =>
  list(1).superRefine((entries, ctx) => {
    for (const entry of entries) {
      let url: URL | null = null;
      try {
        url = new URL(entry);
      } catch { /* refused below */ }
      const isEndpoint = url !== null && ["http:", "https:"].includes(url.protocol) &&
        url.hostname !== "" && url.pathname === "/" && url.search === "" && url.hash === "";
      if (isEndpoint) continue;
      ctx.addIssue({
        code: "custom",
        message: `"${entry}" is not an etcd client URL: expected one such as ` +
          "http://192.168.1.11:2379",
      });
      return;
    }
  });
/** A switch given to a list setting: on is `["all"]`, off the empty list; anything else as given. */
function onOffAsList(v: unknown): unknown {
  if (v === true || v === "on" || v === "true") return ["all"];
  if (v === false || v === "off" || v === "false") return [];
  return v;
}
const booleanText = () =>
  z.union([
    z.boolean(),
    z.enum(["true", "false"]).transform((v) => v === "true"),
  ]);

/** An external command: a JSON array, or a plain command line split on spaces. */
function parseCommand(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (!text.startsWith("[")) return text.split(/\s+/).filter(Boolean);
  try {
    return JSON.parse(text);
  } catch {
    return value; // refused by the schema: a string is not an array
  }
}

/** The settings, in the order `--help` and the README show them. */
export const SETTINGS = {
  dataDir: {
    schema: z.string().min(1),
    flag: "data-dir",
    value: "DIR",
    help: "projects, media and settings (default: the user data dir)",
    doc:
      "Linux `~/.local/share/cueport` (or `$XDG_DATA_HOME`), macOS `~/Library/Application Support/Cueport`, Windows `%APPDATA%\\Cueport`",
  },
  host: {
    schema: list(1).default(["::", "0.0.0.0"]),
    flag: "host",
    value: "LIST",
    help: "addresses to bind, comma-separated (default ::,0.0.0.0: IPv6 and IPv4)",
    doc:
      "`::,0.0.0.0`: IPv6 and IPv4 on every interface; a comma-separated list of addresses to bind",
  },
  httpPort: {
    schema: Port.default(17736),
    flag: "http-port",
    value: "N",
    help: "HTTP port (default 17736; 0 picks a free port)",
    doc: "17736 (0 picks a free port)",
  },
  wsPort: {
    schema: Port.default(17734),
    flag: "ws-port",
    value: "N",
    help: "WebSocket port (default 17734; 0 picks a free port)",
    doc: "17734",
  },
  oscPort: {
    schema: Port.default(17735),
    flag: "osc-port",
    value: "N",
    help: "OSC UDP port (default 17735; 0 picks a free port)",
    doc: "17735",
  },
  oscQueryPort: {
    schema: z.union([z.literal("off").transform(() => null), z.null(), Port]).default(17737),
    flag: "osc-query-port",
    value: "N|off",
    help: "OSCQuery HTTP/WebSocket port (default 17737; 0 picks; off disables)",
    doc:
      "17737: the OSCQuery server describing the OSC address space (0 picks a free port, `off` disables); a port in use is a warning and OSCQuery is off",
  },
  oscQueryMaxBufferedBytes: {
    schema: positiveInt().default(64 * 1024),
    flag: "osc-query-max-buffered",
    value: "BYTES",
    help: "unsent bytes an OSCQuery WebSocket client may hold (65536)",
    doc:
      "65536: unsent bytes an OSCQuery WebSocket client may hold; then values wait, and one behind for `wsLagCloseMs` is closed (1013)",
  },
  oscAllow: {
    schema: subnetList("oscAllow").default([]),
    flag: "osc-allow",
    value: "LIST",
    help: "addresses or subnets that may send OSC without pairing, comma-separated",
    doc:
      "none; comma-separated addresses or subnets (`192.168.1.0/24`) that may send OSC without pairing (view and control)",
  },
  oscRatePerSecond: {
    schema: positiveNumber().default(50_000),
    flag: "osc-rate",
    value: "N",
    help: "OSC datagrams per second per remote address (50000)",
    doc:
      "50000 OSC datagrams per second per remote address: a datagram costs `httpRatePerSecond / oscRatePerSecond` of the budget",
  },
  oscSendBytesPerSecond: {
    schema: positiveInt().default(32 * 1024),
    flag: "osc-send-rate",
    value: "BYTES",
    help: "bytes per second the OSC port may send one remote address (32768)",
    doc:
      "32768 bytes a second (a burst of twice that) the OSC port may send one remote address: replies, feedback, refusals (`docs/osc.md`)",
  },
  midiPort: {
    schema: z.union([z.literal("off").transform(() => 0), Port]).default(5004),
    flag: "midi-port",
    value: "N|off",
    help: "network MIDI (RTP-MIDI) session port (default 5004; 0 or off: no network MIDI)",
    doc:
      "5004: the RTP-MIDI session's control port (data on the next); 0 or `off` turns network MIDI off (`docs/midi.md`)",
  },
  midiName: {
    schema: z.string().max(64).default("Cueport"),
    flag: "midi-name",
    value: "NAME",
    help: "the network MIDI session's name, as DAWs list it (Cueport)",
    doc: "`Cueport`: the network MIDI session's name, as Audio MIDI Setup and rtpMIDI list it",
  },
  midiAllow: {
    schema: subnetList("midiAllow").default([]),
    flag: "midi-allow",
    value: "LIST",
    help: "addresses or subnets whose MIDI is taken without approval, comma-separated",
    doc:
      "none; comma-separated addresses or subnets (`192.168.1.0/24`) whose MIDI is taken without approval (view and control); others are approved once (`cueport midi approve`)",
  },
  midiInvite: {
    schema: list().default([]),
    flag: "midi-invite",
    value: "LIST",
    help: "hosts (host or host:port) the MIDI session invites at start, comma-separated",
    doc: "none; comma-separated `host` or `host:port` (5004) the network MIDI session invites",
  },
  midiFeedback: {
    // `on`/`off` of 6.0's first builds read as `all`/none.
    schema: z.preprocess(onOffAsList, list()).default([]),
    flag: "midi-feedback",
    value: "LIST",
    help: "MIDI participants (session names or addresses, or all) sent feedback, comma-separated",
    doc:
      "none; comma-separated session names or addresses of the MIDI participants sent Clip states as notes and Control values as CCs (pad LEDs, motor faders), `all` for every one; a DAW left out is not sent notes it would record (`docs/midi.md`)",
  },
  midiLocal: {
    schema: z.preprocess(
      (v) =>
        v === "on" || v === "true"
          ? true
          : v === "off" || v === "false"
          ? false
          : typeof v === "string"
          ? v.split(",").map((s) => s.trim()).filter(Boolean)
          : v,
      z.union([z.boolean(), z.array(z.string().min(1)).min(1)]),
    ).default(true),
    flag: "midi-local",
    value: "on|off",
    help:
      "local MIDI ports through the output's browser (default on; off, or port names, comma-separated)",
    doc:
      "`on`: every MIDI port of the show machine the output's browser lists (Web MIDI) is read and gets feedback; `off`: none; port names, comma-separated: those only. No output running, no local ports (docs/midi.md)",
  },
  legacyHttpPort: {
    schema: OptionalPort.default(51736),
    flag: "legacy-http-port",
    value: "N|off",
    help: "5.0.0 HTTP port (default 51736; 0 picks a free port, off disables)",
    doc:
      "51736: the 5.0.0 interface (`docs/compat.md`); 0 picks a free port, `off` disables it; a port in use is a warning and the listener is skipped",
  },
  legacyWsPort: {
    schema: OptionalPort.default(51734),
    flag: "legacy-ws-port",
    value: "N|off",
    help: "5.0.0 WebSocket port (default 51734; 0 picks a free port, off disables)",
    doc: "51734: the 5.0.0 WebSocket, as `legacyHttpPort`",
  },
  logLevel: {
    schema: z.enum(["debug", "info", "warn", "error"]).default("info"),
    flag: "log-level",
    value: "LEVEL",
    help: "debug, info, warn or error (default info)",
    doc: "`info` (`debug`, `info`, `warn`, `error`; the log goes to stderr)",
  },
  logFormat: {
    schema: z.enum(["text", "json"]).default("text"),
    flag: "log-format",
    value: "text|json",
    help: "log lines as text (default) or one JSON object a line (journald, log shippers)",
    doc:
      '`text`: `time LEVEL message`; `json`: one object a line, `{"time","level","message"}` (journald, log shippers)',
  },
  plan: {
    schema: z.enum(["pro", "free"]).default("pro"),
    flag: "plan",
    value: "pro|free",
    help: "the bundled player's plan (default pro; free has no API access)",
    doc: "`pro`; `free` has no API access (the API answers 403)",
  },
  playerCommand: {
    schema: z.preprocess(parseCommand, z.array(z.string())).default([]),
    flag: "player-command",
    value: "CMD",
    help: "run an external player instead (JSON array or a plain command)",
    doc:
      "empty: the bundled player. A JSON array or a plain command line of an external player that speaks `docs/player-protocol.md`",
  },
  playerTimeoutMs: {
    schema: positiveInt().default(30_000),
    flag: "player-timeout",
    value: "MS",
    help: "player silent this long (no heartbeat answered) is hung and restarted (default 30000)",
    doc:
      "30000: a player that answers no heartbeat (one a second, answered beside its work) and sends nothing this long is hung: killed and restarted; slow is no error (`docs/api.md`)",
  },
  playerStuckMs: {
    schema: positiveInt().default(300_000),
    flag: "player-stuck",
    value: "MS",
    help: "player whose current request makes no progress this long is hung (default 300000)",
    doc:
      "300000: a player that answers heartbeats but whose current request made no progress (nothing answered, no progress report) this long is hung: killed and restarted",
  },
  positionIntervalMs: {
    schema: wholeNumber(0).default(250),
    flag: "position-interval",
    value: "MS",
    help: "position reports while playing (default 250; 0 off)",
    doc: "250 (position reports while playing; 0 off)",
  },
  coalesceMs: {
    schema: wholeNumber(0).default(5),
    flag: "coalesce-ms",
    value: "MS",
    help: "state-update coalescing window (default 5)",
    doc: "5 (state-update coalescing window, ms)",
  },
  corsOrigins: {
    schema: list().default([]),
    flag: "cors-origin",
    value: "LIST",
    help: "browser origins allowed to call the API, comma-separated (* for any)",
    doc: "none; comma-separated browser origins allowed to call the API, `*` for any",
  },
  allowedHosts: {
    schema: list().default([]),
    flag: "allowed-host",
    value: "LIST",
    help: "extra names of this machine accepted in the Host header, comma-separated",
    doc:
      "none; extra names accepted in the `Host` header besides the hostname, `.local` name and addresses",
  },
  localhostAuthExempt: {
    schema: booleanText().default(true),
    flag: "localhost-auth-exempt",
    value: "true|false",
    help: "local HTTP clients need no token (default true)",
    doc: "true (HTTP clients on 127.0.0.1/::1 need no token)",
  },
  approval: {
    schema: z.enum(["approve", "deny", "wait"]).default("approve"),
    flag: "approval",
    value: "MODE",
    help: "local WebSocket clients without credentials: approve (default), deny, wait",
    doc:
      "`approve`; how local WebSocket clients without credentials are approved (`deny`, or `wait` for `cueport approve`)",
  },
  tokenLifetimeDays: {
    schema: positiveNumber().default(30),
    flag: "token-lifetime-days",
    value: "N",
    help: "lifetime of device tokens (default 30)",
    doc: "30",
  },
  historyLimit: {
    schema: wholeNumber(1, 10_000).default(100),
    flag: "history-limit",
    value: "N",
    help: "undo steps kept per Project (default 100)",
    doc: "100; undo steps kept per Project",
  },
  outputTextureBudgetMb: {
    schema: wholeNumber(16, 65_536).default(256),
    flag: "output-texture-budget-mb",
    value: "MB",
    help: "texture budget of all Effects and Visualizers on the output (default 256)",
    doc:
      "256; MB of textures and render targets all Effects and Visualizers of a Project may take on the output together; an edit that would pass it is refused (`docs/output.md`)",
  },
  ffmpeg: {
    schema: z.string().min(1).default("ffmpeg"),
    flag: "ffmpeg",
    value: "CMD",
    help: "ffmpeg for video thumbnails, other audio and cameras (default ffmpeg; off: none)",
    doc:
      "`ffmpeg` (found on the `PATH`); a path, or `off`. Without it videos get a generated card, cameras other than the test pattern answer 503 (`docs/media.md`)",
  },
  output: {
    schema: z.enum(["auto", "window", "fullscreen", "headless", "none"]).default("auto"),
    flag: "output",
    value: "MODE",
    help: "the show's output: auto (default), window, fullscreen, headless, none",
    doc:
      "`auto`: a window in a Chromium-family browser where a display and a browser are found, else none (one INFO line says why); `window`, `fullscreen` (kiosk), `headless` (no display), `none` (`docs/output.md`)",
  },
  outputBrowser: {
    schema: z.string().min(1).default("auto"),
    flag: "output-browser",
    value: "PATH",
    help: "the output's browser (default auto: Chromium, Chrome or Edge, found)",
    doc:
      "`auto`: the first Chromium, Chrome or Edge on the `PATH` or where their installers put them; or a path (`docs/output.md`)",
  },
  outputDisplay: {
    schema: z.string().min(1).default(PRIMARY_DISPLAY),
    flag: "output-display",
    value: "NAME|N",
    help:
      "the display of the output at start: a name or index (cueport displays lists them); default primary: the primary, or the last OUTPUT_DISPLAY's",
    doc:
      "`primary`: the primary display, or the one the last `OUTPUT_DISPLAY` chose (saved); a display's name (`HDMI-1`) or index (`1`) as `cueport displays` lists them: the output's display at each start, until an `OUTPUT_DISPLAY` (`docs/output.md`, \"Displays\")",
  },
  outputRegion: {
    schema: RegionText.default(FULL_REGION_TEXT),
    flag: "output-region",
    value: "REGION",
    help:
      "the part of the canvas this machine's output shows, e.g. 0,0,0.4,1;right=0.25 (default full: the whole canvas, or the last OUTPUT_REGION's)",
    doc:
      '`full`: the whole canvas, or the last `OUTPUT_REGION`\'s (saved); `x,y,width,height` (canvas fractions) with `;left=`, `;right=`, `;top=`, `;bottom=` blend edges and `;gamma=`: the region at each start (`docs/output.md`, "Wide stages")',
  },
  maxImagePixels: {
    schema: positiveInt().default(40_000_000),
    flag: "max-image-pixels",
    value: "N",
    help: "largest picture decoded for a thumbnail, in pixels (default 40000000)",
    doc:
      "40000000 (40 megapixels; a 4K still is 8.3): an image or video frame whose header declares more gets a card, never decoded; a PNG (decoded whole) over 12.5 megapixels too, whatever this says (`docs/media.md`)",
  },
  maxPictureCacheBytes: {
    schema: positiveInt().default(1024 ** 3),
    flag: "max-picture-cache",
    value: "BYTES",
    help: "disk kept for thumbnails and waveforms made (default 1073741824, 1 GiB)",
    doc:
      "1073741824 (1 GiB): thumbnails and waveforms kept under `<dataDir>/cache/media/`; past it the least recently used are removed (`docs/media.md`)",
  },
  maxUploadBytes: {
    schema: positiveInt().default(2 * 1024 ** 3),
    flag: "max-upload",
    value: "BYTES",
    help: "largest media upload (default 2147483648, 2 GiB)",
    doc: "2147483648 (2 GiB); largest media upload",
  },
  maxConnections: {
    schema: positiveInt().default(512),
    flag: "max-connections",
    value: "N",
    help: "open connections per port for remote clients (512)",
    doc:
      "512 open connections of remote clients per port (HTTP, WebSocket, OSCQuery); over it: 503 `TOO_MANY_CONNECTIONS`",
  },
  maxConnectionsPerAddress: {
    schema: positiveInt().default(64),
    flag: "max-connections-per-address",
    value: "N",
    help: "open connections per remote address and port (64)",
    doc: "64 per remote address and port",
  },
  localConnectionReserve: {
    schema: wholeNumber(1).default(64),
    flag: "local-connection-reserve",
    value: "N",
    help: "connections per port kept for local clients (64)",
    doc: "64 connections per port kept for local clients",
  },
  headerTimeoutMs: {
    schema: positiveInt().default(10_000),
    flag: "header-timeout",
    value: "MS",
    help: "deadline to read a request's headers and JSON body (10000)",
    doc: "10000; deadline to read a request's headers (and a JSON body)",
  },
  keepAliveTimeoutMs: {
    schema: positiveInt().default(15_000),
    flag: "keep-alive-timeout",
    value: "MS",
    help: "close an idle keep-alive connection after this long (15000)",
    doc: "15000; an idle keep-alive connection is closed",
  },
  uploadIdleTimeoutMs: {
    schema: positiveInt().default(30_000),
    flag: "upload-idle-timeout",
    value: "MS",
    help: "end an upload that sends nothing for this long (30000)",
    doc: "30000; an upload that sends nothing this long gets 408",
  },
  maxBodyBytes: {
    // At most 8 MiB, so an edit always fits the bundled player's 16 MiB request line.
    schema: positiveInt(8 * 1024 * 1024).default(1024 * 1024),
    flag: "max-body",
    value: "BYTES",
    help: "largest JSON body (1048576; at most 8388608)",
    doc: "1048576; largest JSON body (at most 8 MiB, within the player's 16 MiB request line)",
  },
  maxUnauthenticatedBodyBytes: {
    schema: positiveInt().default(16 * 1024),
    flag: "max-unauthenticated-body",
    value: "BYTES",
    help: "largest body of a remote request without a token (16384)",
    doc: "16384; largest body of a remote request without a token",
  },
  httpRatePerSecond: {
    schema: positiveNumber().default(200),
    flag: "http-rate",
    value: "N",
    help: "requests per second per remote address, on every transport (200)",
    doc:
      "200 requests per second per remote address: the budget every transport takes from (local clients are not limited)",
  },
  httpBurst: {
    schema: positiveInt().default(400),
    flag: "http-burst",
    value: "N",
    help: "requests a remote address may send at once (400)",
    doc: "400; the burst of `httpRatePerSecond`",
  },
  wsMaxMessageBytes: {
    schema: positiveInt().default(64 * 1024),
    flag: "ws-max-message",
    value: "BYTES",
    help: "largest WebSocket message (65536)",
    doc: "65536",
  },
  wsRatePerSecond: {
    schema: positiveNumber().default(50_000),
    flag: "ws-rate",
    value: "N",
    help: "WebSocket messages per second per remote address (50000)",
    doc:
      "50000 WebSocket messages per second per remote address: a message costs `httpRatePerSecond / wsRatePerSecond` of the budget",
  },
  wsMaxBufferedBytes: {
    schema: positiveInt().default(4 * 1024 * 1024),
    flag: "ws-max-buffered",
    value: "BYTES",
    help: "unsent bytes before a client counts as lagging (4194304)",
    doc: "4194304 (a client with more unsent is lagging and gets resynced)",
  },
  wsLagCloseMs: {
    schema: positiveInt().default(10_000),
    flag: "ws-lag-close",
    value: "MS",
    help: "close a client lagging this long (10000)",
    doc: "10000 (a client lagging this long is closed)",
  },
  wsAuthTimeoutMs: {
    schema: positiveInt().default(10_000),
    flag: "ws-auth-timeout",
    value: "MS",
    help: "a WebSocket client must authenticate within this long (10000)",
    doc: "10000; a WebSocket client must authenticate within this",
  },
  wsUnauthenticatedMaxBufferedBytes: {
    schema: positiveInt().default(64 * 1024),
    flag: "ws-unauthenticated-max-buffered",
    value: "BYTES",
    help: "unsent bytes allowed before auth (65536)",
    doc: "65536; unsent bytes allowed before auth",
  },
  mdns: {
    schema: z.union([
      z.boolean(),
      z.enum(["on", "off", "true", "false"]).transform((v) => v === "on" || v === "true"),
    ]).default(true),
    flag: "mdns",
    value: "on|off",
    help: "advertise the service by mDNS/DNS-SD (default on)",
    doc:
      "`on`: advertise the service by mDNS/DNS-SD on the interfaces of `host` (docs/discovery.md)",
  },
  group: {
    schema: z.union([z.literal(""), RigName]).default(""),
    flag: "group",
    value: "NAME",
    help: "the rig group this Cueport joins, on etcd (default none: it runs alone)",
    doc:
      "none: Cueport runs alone and touches no etcd; a name (letters, digits, `-_.`): the rig group it joins through `groupEndpoints` (`docs/rigs.md`)",
  },
  groupEndpoints: {
    schema: endpointList().default(["http://127.0.0.1:2379"]),
    flag: "group-endpoints",
    value: "LIST",
    help: "the etcd members of the group, comma-separated URLs (default http://127.0.0.1:2379)",
    doc:
      "`http://127.0.0.1:2379`: the etcd members' client URLs, comma-separated; the rig moves to the next when one does not answer (`docs/rigs.md`)",
  },
  rigName: {
    schema: z.union([z.literal(""), RigName]).default(""),
    flag: "rig-name",
    value: "NAME",
    help: "this rig's name in its group (default the host name)",
    doc: "none: the host name is this rig's name in its group, unique in it (`docs/rigs.md`)",
  },
  groupLeaseSeconds: {
    schema: wholeNumber(1, 60).default(1),
    flag: "group-lease",
    value: "S",
    help: "a rig silent this long leaves its group and its leadership (default 1)",
    doc:
      "1: the rig's etcd lease; a rig that dies is out of the group, and its leadership passes on, this long after (`docs/rigs.md`)",
  },
  groupClockPort: {
    schema: Port.default(17738),
    flag: "group-clock-port",
    value: "N",
    help: "UDP port of the rig group's show clock exchange (default 17738; 0 picks a free port)",
    doc:
      "17738: the UDP port the rigs of a group measure each other's show clocks on, opened only in a group (`docs/rigs.md`)",
  },
  groupActionLeadMs: {
    schema: wholeNumber(20, 2000).default(120),
    flag: "group-action-lead",
    value: "MS",
    help: "how far ahead of now a rig group runs an action, ms (default 120)",
    doc:
      "120: in a group, an action runs on every rig at the show time this far after it arrived, within etcd's watch p99 (`docs/rigs.md`)",
  },
  groupSnapshotEntries: {
    schema: wholeNumber(2, 1_000_000).default(1000),
    flag: "group-snapshot-entries",
    value: "N",
    help: "the group's leader snapshots its log every N entries (default 1000)",
    doc:
      "1000: in a group, the leading rig writes a snapshot of the Projects and trims the log every this many entries (or 1 MiB of them) (`docs/rigs.md`)",
  },
  serviceName: {
    schema: z.string().trim().min(1).max(40).default("Cueport"),
    flag: "service-name",
    value: "NAME",
    help: "first word of the advertised names (default Cueport)",
    doc:
      "`Cueport`; the adverts are named `<serviceName> - <hostname>`, `<serviceName> HTTP - <hostname>`",
  },
  mcpMaxSessions: {
    schema: positiveInt().default(32),
    flag: "mcp-max-sessions",
    value: "N",
    help: "open MCP sessions of local clients, and of remote devices, each (32)",
    doc:
      "32 MCP sessions of local clients (a new one closes the least recently used), 32 of remote devices, at most `mcpMaxSessionsPerDevice` each (more: 429, `docs/mcp.md`)",
  },
  mcpMaxSessionsPerDevice: {
    schema: positiveInt().default(8),
    flag: "mcp-max-sessions-per-device",
    value: "N",
    help: "open MCP sessions of one remote device or address (8)",
    doc: "8 MCP sessions of one remote device or address at once (more: 429, `docs/mcp.md`)",
  },
  mcpMaxBufferedBytes: {
    schema: positiveInt().default(1024 * 1024),
    flag: "mcp-max-buffered",
    value: "BYTES",
    help: "unsent bytes of an MCP event stream before it is closed (1048576)",
    doc:
      "1048576; an MCP event stream (`GET /mcp`) holding more unsent bytes is closed (`docs/mcp.md`)",
  },
  mcpSessionIdleMs: {
    schema: positiveInt().default(30 * 60_000),
    flag: "mcp-session-idle",
    value: "MS",
    help: "an MCP session without a request this long is closed (1800000)",
    doc: "1800000 (30 minutes); an MCP session without a request this long is closed",
  },
  virtualClock: {
    schema: z.boolean().default(false),
    flag: "virtual-clock",
    help: "run the player on a virtual clock (tests only)",
    doc: "false; for tests: the player's clock moves only when told",
  },
} as const satisfies Record<string, SettingSpec>;

/** A setting's name (its config-file key). */
export type SettingName = keyof typeof SETTINGS;

/** Every setting's value once read, as its schema gives it. */
export type SettingValues = { [K in SettingName]: z.output<(typeof SETTINGS)[K]["schema"]> };

/** The settings with a default: all but `dataDir`, whose default depends on the platform. */
export type DefaultedSetting = Exclude<SettingName, "dataDir">;

/**
 * Every setting's default, from its schema: what a component takes when it is
 * started without that option. No component repeats a default of its own
 * (`tests/protocol/settings_test.ts` looks for one).
 */
export const SETTING_DEFAULTS: { readonly [K in DefaultedSetting]: SettingValues[K] } = Object
  .freeze(
    Object.fromEntries(
      Object.entries(SETTINGS).flatMap(([name, spec]: [string, SettingSpec]) => {
        const parsed = spec.schema.safeParse(undefined);
        return parsed.success ? [[name, parsed.data]] : [];
      }),
    ),
  ) as { readonly [K in DefaultedSetting]: SettingValues[K] };

/** The environment variable of a setting: `CUEPORT_` and the name in upper snake case. */
export function envName(setting: string): string {
  return "CUEPORT_" + setting.replace(/[A-Z]/g, (c) => "_" + c).toUpperCase();
}

/** Whether a setting is a switch (a flag without a value). */
export function isSwitch(spec: SettingSpec): boolean {
  return spec.value === undefined;
}

/** Where a setting is changed, for error messages: `--flag or CUEPORT_NAME`. */
export function settingPlaces(setting: string): string {
  const spec = (SETTINGS as Record<string, SettingSpec>)[setting];
  return spec ? `--${spec.flag} or ${envName(setting)}` : envName(setting);
}

/**
 * The message of a setting's first problem. Zod says only "Invalid input" when
 * no branch of a union (`on|off` or a boolean, `off` or a port) takes the
 * value; this names what the branches accept instead, as an enum's message
 * does. Every other problem keeps zod's message.
 * @example
 * settingIssueMessage(SETTINGS.mdns.schema.safeParse("maybe").error!.issues[0]!);
 * // 'Invalid option: expected one of "on"|"off"|"true"|"false" or a boolean'
 */
export function settingIssueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code !== "invalid_union") return issue.message;
  const values: string[] = [];
  const kinds: string[] = [];
  collectAccepted(issue, values, kinds);
  if (values.length === 0 && kinds.length === 0) return issue.message;
  const listed = values.length > 1 ? [`one of ${values.join("|")}`] : values;
  return `Invalid option: expected ${[...listed, ...kinds].join(" or ")}`;
}

/** What the branches of a union accept: exact values, and kinds of value (`a number`). */
function collectAccepted(issue: z.core.$ZodIssue, values: string[], kinds: string[]): void {
  if (issue.code === "invalid_union") {
    for (const branch of issue.errors) {
      for (const inner of branch) collectAccepted(inner, values, kinds);
    }
  } else if (issue.code === "invalid_value") {
    values.push(...issue.values.map((value) => JSON.stringify(value)));
  } else if (issue.message.startsWith("expected ")) {
    // A range a schema here words itself (`wholeNumber`): "a whole number from 0 to 65535".
    const kind = issue.message.slice("expected ".length);
    if (!kinds.includes(kind)) kinds.push(kind);
  } else if (issue.code === "invalid_type") {
    const kind = issue.expected === "null"
      ? "null"
      : `${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}`;
    if (issue.expected === "null") values.push(kind);
    else if (!kinds.includes(kind)) kinds.push(kind);
  }
}

/** The settings the service passes on to the bundled player as flags (`cueport player`). */
export const PLAYER_SETTINGS = [
  "dataDir",
  "plan",
  "positionIntervalMs",
  "approval",
  "historyLimit",
  "outputTextureBudgetMb",
  "virtualClock",
  "ffmpeg",
  "output",
  "outputBrowser",
  "outputDisplay",
  "outputRegion",
  "midiLocal",
] as const satisfies readonly SettingName[];

/** A setting the bundled player takes as a flag. */
export type PlayerSetting = (typeof PLAYER_SETTINGS)[number];

/** The bundled player's settings once read (`cueport player` parses its flags with their schemas). */
export type PlayerSettingValues = Pick<SettingValues, PlayerSetting>;

/**
 * The bundled player's settings as the service passes them: `dataDir`, and
 * any of the others; one left out is its schema's default in the player.
 */
export type PlayerFlagValues =
  & Pick<SettingValues, "dataDir">
  & Partial<Omit<PlayerSettingValues, "dataDir">>;

/**
 * The player's settings as flags: what the service puts on the player's
 * command line. Only those that differ from their schema's default: the
 * player reads a flag left out as that default (`player/mod.ts` parses with
 * the same schemas).
 */
export function playerFlags(values: PlayerFlagValues): string[] {
  return PLAYER_SETTINGS.flatMap((name) => {
    const spec: SettingSpec = SETTINGS[name];
    const value = values[name];
    if (value === undefined || value === (SETTING_DEFAULTS as Record<string, unknown>)[name]) {
      return [];
    }
    if (isSwitch(spec)) return value ? [`--${spec.flag}`] : [];
    return [`--${spec.flag}`, String(value)];
  });
}
