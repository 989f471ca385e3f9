import assert from "node:assert/strict";
import {
  PLAYER_SETTINGS,
  playerFlags,
  SETTING_DEFAULTS,
  SETTINGS,
  type SettingSpec,
} from "../../protocol/settings.ts";
import { loadSettings } from "../../server/config.ts";
import { readPlayerFlags } from "../../player/mod.ts";
import { settingsRows } from "../../tools/settings_doc.ts";

const SPECS = Object.entries(SETTINGS) as Array<[string, SettingSpec]>;
const DEFAULTS = Object.entries(SETTING_DEFAULTS) as Array<[string, unknown]>;

/** A default as docs/settings.md and `--help` write it: `on` for an on|off switch, a list with commas. */
function written(spec: SettingSpec, value: unknown): string[] {
  if (Array.isArray(value)) return value.length === 0 ? ["none", "empty"] : [value.join(",")];
  if (value === "") return ["none", "empty"]; // a name not given (group, rigName)
  if (typeof value === "boolean" && spec.value === "on|off") return [value ? "on" : "off"];
  return [String(value)];
}

/** `text` as a word of its own (not a part of a longer number or name). */
function asWord(text: string): RegExp {
  return new RegExp(`(?<![\\w.])${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w])`);
}

Deno.test("settings: every setting but dataDir has its default from its schema", () => {
  assert.deepEqual(
    DEFAULTS.map(([name]) => name),
    SPECS.map(([name]) => name).filter((name) => name !== "dataDir"),
  );
  for (const [name, value] of DEFAULTS) {
    const spec = SETTINGS[name as keyof typeof SETTINGS] as SettingSpec;
    assert.deepEqual(spec.schema.parse(undefined), value, name);
  }
});

Deno.test("settings: the service started without a setting has the schema's default, and the player is given only what differs", async () => {
  const loaded = await loadSettings(["--data-dir", "/tmp/x"], () => undefined);
  assert.ok(!loaded.help);
  const { dataDir, ...rest } = loaded.settings;
  assert.equal(dataDir, "/tmp/x");
  assert.deepEqual(rest, { ...SETTING_DEFAULTS });
  // The flags the service gives the player (serve_command.ts, spawn.ts): only what differs, as
  // a flag left out is its schema's default in the player too (player/mod.ts parses with it).
  assert.deepEqual(playerFlags(loaded.settings), ["--data-dir", "/tmp/x"]);
  const changed = {
    ...loaded.settings,
    historyLimit: 7,
    virtualClock: true,
    output: "none" as const,
  };
  const flags = [
    "--data-dir",
    "/tmp/x",
    "--history-limit",
    "7",
    "--virtual-clock",
    "--output",
    "none",
  ];
  assert.deepEqual(playerFlags(changed), flags);
  const player = Object.fromEntries(PLAYER_SETTINGS.map((name) => [name, changed[name]]));
  assert.deepEqual(readPlayerFlags(playerFlags(changed)), { help: false, settings: player });
});

Deno.test("settings: the bundled player given only its data dir has every default; the flags the service writes read back as given", () => {
  const defaults = Object.fromEntries(
    PLAYER_SETTINGS.filter((name) => name !== "dataDir").map((
      name,
    ) => [name, SETTING_DEFAULTS[name]]),
  );
  assert.deepEqual(readPlayerFlags(["--data-dir", "/tmp/x"]), {
    help: false,
    settings: { dataDir: "/tmp/x", ...defaults },
  });
  const given = {
    dataDir: "/tmp/y",
    plan: "free",
    positionIntervalMs: 0,
    approval: "wait",
    historyLimit: 7,
    outputTextureBudgetMb: 512,
    virtualClock: true,
    ffmpeg: "off",
    output: "headless",
    outputBrowser: "/usr/bin/chromium",
    outputDisplay: "HDMI-1",
    midiLocal: ["Launchpad X", "IAC Driver Bus 1"] as string[],
  } as const;
  assert.deepEqual(Object.keys(given).sort(), [...PLAYER_SETTINGS].sort(), "every player setting");
  assert.deepEqual(readPlayerFlags(playerFlags(given)), { help: false, settings: given });
  assert.throws(() => readPlayerFlags(["--data-dir", "/x", "--plan", "gold"]), /invalid --plan/);
});

Deno.test("settings: docs/settings.md's table and --help say each setting's default as its schema gives it", () => {
  const readme = new Map(settingsRows().map((row) => [row[0]!.replaceAll("`", ""), row[3]!]));
  const wrong: string[] = [];
  for (const [name, value] of DEFAULTS) {
    const spec = SETTINGS[name as keyof typeof SETTINGS] as SettingSpec;
    const forms = written(spec, value);
    // The doc's column starts with the default, perhaps in backticks.
    const doc = readme.get(name)!;
    const first = /^`([^`]*)`/.exec(doc)?.[1] ?? doc.split(/[\s:;(]/)[0]!;
    if (!forms.includes(first)) {
      wrong.push(`docs/settings.md ${name}: "${first}", not ${forms.join("|")}`);
    }
    // --help names it, unless it is nothing (an empty list, a switch off).
    const isNothing = forms[0] === "none" || value === false;
    if (!isNothing && !forms.some((form) => asWord(form).test(spec.help))) {
      wrong.push(`--help ${name}: "${spec.help}" lacks ${forms.join("|")}`);
    }
  }
  assert.deepEqual(wrong, []);
});

// ---- No component repeats a setting's default ---------------------------------------------

/**
 * Fallbacks that look like a setting's default but are not one, each with the
 * reason (the test names any other).
 */
const NOT_SETTINGS: ReadonlyArray<readonly [path: string, hit: string]> = [
  // The log before the settings are read: main.ts loads no settings (nor zod) before the player starts.
  ["server/log.ts", 'format: LogFormat = "text"'],
  // The deadline of a DevTools command to the output's browser, not a player request's.
  ["player/output/devtools.ts", "timeoutMs = 5000"],
  // A WebSocket request's head (a handshake), not a request's body.
  ["server/net/serve_websocket.ts", "const MAX_HEAD_BYTES = 16 * 1024;"],
  // The WebSocket's ping of a silent client, not an upload's idle deadline.
  ["server/socket/mod.ts", "const IDLE_TIMEOUT_MS = 30_000;"],
  // An AppleMIDI participant's silence before it is dropped (no setting), not the player's.
  ["server/midi/rtp/network.ts", "const PARTICIPANT_TIMEOUT_MS = 30_000;"],
];

/** Whether `hit` in `path` is one of the NOT_SETTINGS. */
function isExcepted(path: string, hit: string): boolean {
  return NOT_SETTINGS.some(([place, start]) => place === path && hit.startsWith(start));
}

/** The program's source files (the settings' own table aside). */
async function* sources(): AsyncGenerator<string> {
  for (const dir of ["server", "player", "protocol", "lib"]) {
    for await (const path of walk(dir)) {
      if (path !== "protocol/settings.ts") yield path;
    }
  }
  yield "main.ts";
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (/\.ts$/.test(entry.name)) yield path;
  }
}

/** The value of a literal as code writes it (`"pro"`, `30_000`, `2 * 1024 ** 3`), or undefined. */
function literal(text: string): unknown {
  const quoted = /^["'](.*)["']$/.exec(text);
  if (quoted) return quoted[1];
  if (!/^[\d_.\s*]+$/.test(text)) return undefined;
  return text.replaceAll("_", "").replaceAll("**", "^").split("*").reduce((product, factor) => {
    const [base, exponent] = factor.split("^").map(Number);
    return product * (exponent === undefined ? base! : base! ** exponent);
  }, 1);
}

/** Whether an option's name is a setting's (`timeoutMs` for `playerTimeoutMs`, `plan`). */
function namesSetting(option: string, setting: string): boolean {
  const [o, s] = [option.toLowerCase(), setting.toLowerCase()];
  return o === s || (o.length >= 6 && (s.endsWith(o) || o.endsWith(s)));
}

/** The words of a name: `maxImagePixels` and `DEFAULT_MAX_PIXELS` give `max`, `pixels` and others. */
function words(name: string): string[] {
  return name.replace(/([a-z\d])([A-Z])/g, "$1_$2").toLowerCase().split(/[_$#]+/).filter(Boolean);
}

/**
 * Whether a constant's name shares two words with a setting's
 * (`DEFAULT_MAX_PIXELS`, `maxImagePixels`), or all of them (`defaultPlan`, `plan`).
 */
function sharesWords(constant: string, setting: string): boolean {
  const theirs = new Set(words(setting));
  const shared = new Set(words(constant).filter((word) => theirs.has(word))).size;
  return shared >= 2 || shared === theirs.size;
}

/** A place a default can be repeated, and how its name must match a setting's. */
interface Repetition {
  pattern: RegExp;
  names(name: string, setting: string): boolean;
}

const REPETITIONS: Repetition[] = [
  // x.name ?? literal
  { pattern: /([\w$#]*)[)"'\]]*\s*\?\?\s*([^,;)}\n?]+)/g, names: namesSetting },
  // name = literal, name: alias = literal (a parameter or a destructured field)
  {
    pattern: /([\w$]+)(?::\s*[\w$]+)?\s*(?<![=!<>?])=(?![=>])\s*([^,;)}\n=?]+)/g,
    names: namesSetting,
  },
  // const NAME = literal, a constant of a module or a function
  {
    pattern: /\bconst\s+([\w$]+)(?::\s*[\w$]+)?\s*=\s*([^;\n=]+?)(?:\s+as\s+const)?\s*;/g,
    names: sharesWords,
  },
];

/**
 * The places in `code` that repeat a setting's default: `x.name ?? literal`,
 * a default parameter or destructured `name = literal` or `name: alias = literal`,
 * where the name is the setting's and the literal its default; a constant
 * `const NAME = literal` whose name shares two words with the setting's (or all); and
 * any fallback to a default port (`?? 17736`), whatever it is called.
 */
function repeatedDefaults(code: string): string[] {
  const found: string[] = [];
  const ports = DEFAULTS.filter(([name]) => /Port$/.test(name)).map(([, v]) => String(v));
  for (const [index, { pattern, names }] of REPETITIONS.entries()) {
    for (const match of code.matchAll(pattern)) {
      const [text, name, expression] = match as unknown as string[];
      if (index === 0 && ports.some((port) => expression!.includes(port))) {
        found.push(text!.trim());
        continue;
      }
      const value = literal(expression!.trim());
      if (value === undefined) continue;
      for (const [setting, dflt] of DEFAULTS) {
        if (dflt === value && names(name!.replace(/^#/, ""), setting)) {
          found.push(`${text!.trim()} (${setting})`);
        }
      }
    }
  }
  return found;
}

Deno.test("settings: repeatedDefaults() finds a default repeated as a fallback or a constant, and only then", () => {
  const planted = [
    "this.#stuckMs = options.stuckMs ?? 300_000;",
    "const max = this.#o.maxBodyBytes ?? 1024 * 1024;",
    "const { uploadIdleTimeoutMs: idleMs = 30_000 } = options;",
    'plan: options.plan ?? "pro",',
    "const port = running?.ports?.http ?? 17736;",
    'const host = request.headers.get("host") ?? "localhost:17736";',
    "maxUploadBytes: options.maxUploadBytes ?? 2 * 1024 ** 3,",
    "export const DEFAULT_MAX_PIXELS = 40_000_000;",
    "const UPLOAD_IDLE_MS: number = 30_000;",
    'const defaultPlan = "pro" as const;',
  ];
  for (const line of planted) assert.equal(repeatedDefaults(line).length, 1, line);
  const fine = [
    "this.#timeoutMs = options.timeoutMs ?? SETTING_DEFAULTS.playerTimeoutMs;",
    "const grace = options.handshakeTimeoutMs ?? 30_000;", // no setting of that name
    "const delay = options.maxMs ?? 5000;",
    'const mode = options.mode ?? "pro";',
    "const FRAME_DEADLINE_MS = 10_000;", // one word shared with headerTimeoutMs: ms
    "const CARD_SIZE = 512;", // none shared with maxConnections
    "const MAX_PIXELS = SETTING_DEFAULTS.maxImagePixels;",
  ];
  for (const line of fine) assert.deepEqual(repeatedDefaults(line), [], line);
});

Deno.test("settings: no component repeats a setting's default as a fallback or a constant of its own", async () => {
  const found: string[] = [];
  for await (const path of sources()) {
    for (const hit of repeatedDefaults(await Deno.readTextFile(path))) {
      if (!isExcepted(path, hit)) found.push(`${path}: ${hit}`);
    }
  }
  assert.deepEqual(found, [], "take SETTING_DEFAULTS (protocol/settings.ts) instead");
});

/**
 * The lines of `code`, comments aside, that write a setting's default port as
 * a number (a usage text's "else 17736", a message's "(legacyHttpPort, 51736)").
 */
function writtenPorts(code: string): string[] {
  const ports = DEFAULTS.filter(([name]) => /Port$/.test(name)).map(([, v]) => asWord(String(v)));
  return code.split("\n").map((line) => line.trim())
    .filter((line) => !/^(\*|\/\/|\/\*)/.test(line) && ports.some((port) => port.test(line)));
}

Deno.test("settings: writtenPorts() finds a default port written in code, not in a comment", () => {
  assert.deepEqual(writtenPorts('  "the 5.0.0 port (legacyHttpPort, 51736)",\n'), [
    '"the 5.0.0 port (legacyHttpPort, 51736)",',
  ]);
  assert.equal(writtenPorts("its data dir, else 17736)`;").length, 1);
  const fine = [
    " * The OSC transport (UDP 17735, docs/osc.md)",
    "// Off unless a test asks: 51736 is shared",
    "`${SETTING_DEFAULTS.httpPort}`",
    "const port = 177360;",
  ];
  for (const line of fine) assert.deepEqual(writtenPorts(line), [], line);
});

Deno.test("settings: no text of the program writes a default port (usage and messages take SETTING_DEFAULTS)", async () => {
  const found: string[] = [];
  for await (const path of sources()) {
    for (const line of writtenPorts(await Deno.readTextFile(path))) found.push(`${path}: ${line}`);
  }
  assert.deepEqual(
    found,
    [],
    "write `${SETTING_DEFAULTS.httpPort}` (protocol/settings.ts) instead",
  );
});
