/**
 * Service settings from, in rising precedence: defaults, a JSON config file,
 * `CUEPORT_*` environment variables, command-line flags.
 * @module
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { didYouMean } from "../lib/suggest.ts";
import {
  envName,
  isSwitch,
  SETTING_DEFAULTS,
  settingIssueMessage,
  type SettingName,
  settingPlaces,
  SETTINGS,
  type SettingSpec,
} from "../protocol/settings.ts";

/** Every setting, with its default (declared in `protocol/settings.ts`). */
export const Settings = z.object(
  Object.fromEntries(
    Object.entries(SETTINGS).map(([name, spec]) => [name, spec.schema]),
  ) as { [K in SettingName]: (typeof SETTINGS)[K]["schema"] },
);
/** Every setting, with its default. */
export type Settings = z.infer<typeof Settings>;

export { envName };

const SPECS = Object.entries(SETTINGS) as Array<[SettingName, SettingSpec]>;

/** The operator commands' line of the usage. */
const COMMANDS = `       cueport player [options]     (the bundled player; started by the service)
       cueport pair | devices | revoke DEVICE_ID | approvals | approve ID | deny ID | rotate-key
                                    (operator commands; cueport pair --help)
       cueport displays             (the show machine's displays and the output's; docs/output.md)
       cueport mcp                  (an MCP server on stdio forwarding to /mcp; docs/mcp.md)
       cueport midi [approve|deny ID]   (MIDI participants, sources waiting; docs/midi.md)
       cueport status               (asks the running service: health, ports, player, clients)
       cueport service install | uninstall | status [--user] [--dry-run]
                                    (a systemd unit or a launchd job; cueport service --help)
       cueport config check [FILE] | path   (checks a config file; where it is by default)
       cueport show export NAME FILE | show import FILE [--replace]
                                    (a Project to a show file and back; docs/projects.md)
       cueport group status | join NAME | leave   (the rig group; docs/rigs.md)
       cueport --version`;

const D = SETTING_DEFAULTS;

/** Usage text of `cueport serve`, from the settings table. */
export const SERVE_USAGE = [
  "Usage: cueport [serve] [options]",
  COMMANDS,
  "",
  `Starts the Cueport service: HTTP on ${D.httpPort}, WebSocket on ${D.wsPort}, OSC on UDP ${D.oscPort},`,
  `OSCQuery on ${D.oscQueryPort}, network MIDI on UDP ${D.midiPort} and the next (docs/midi.md),`,
  `and the 5.0.0 interface on ${D.legacyHttpPort} (HTTP) and ${D.legacyWsPort} (WebSocket) (docs/compat.md).`,
  "Options (each also CUEPORT_<NAME> in the environment, or a key of the --config file):",
  ...SPECS.flatMap(([name, spec]) => {
    const left = `  --${spec.flag}${isSwitch(spec) ? "" : ` ${spec.value}`}`;
    const line = `${left.padEnd(26)} ${spec.help}`;
    // --config sits after the ports, as before the table existed.
    return name === "oscPort"
      ? [line, `${"  --config FILE".padEnd(26)} JSON file of settings (camelCase keys)`]
      : [line];
  }),
  `${"  --help".padEnd(26)} show this help`,
].join("\n");

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

/**
 * The config file read when neither `--config` nor `CUEPORT_CONFIG` names one (if it exists):
 * Linux `$CONFIGURATION_DIRECTORY/config.json` under systemd, else
 * `${XDG_CONFIG_HOME:-~/.config}/cueport/config.json`; macOS
 * `~/Library/Application Support/Cueport/config.json`; Windows `%APPDATA%\Cueport\config.json`.
 * Null when the environment names no home.
 */
export function defaultConfigPath(
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
  os: typeof Deno.build.os = Deno.build.os,
): string | null {
  const home = env("HOME") ?? env("USERPROFILE");
  switch (os) {
    case "windows": {
      const base = env("APPDATA");
      return base ? `${base}\\Cueport\\config.json` : null;
    }
    case "darwin":
      return home ? `${home}/Library/Application Support/Cueport/config.json` : null;
    default: {
      const systemd = env("CONFIGURATION_DIRECTORY")?.split(":")[0];
      if (systemd) return `${systemd}/config.json`;
      const base = env("XDG_CONFIG_HOME") ?? (home ? `${home}/.config` : null);
      return base ? `${base}/cueport/config.json` : null;
    }
  }
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
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
  for (const [, spec] of SPECS) {
    options[spec.flag] = { type: isSwitch(spec) ? "boolean" : "string" };
  }
  const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
  if (values.help) return { help: true };

  const raw: Record<string, unknown> = {};
  /** Where each value was given: the flag, the variable or the config file. */
  const givenIn: Record<string, string> = {};
  const fallback = defaultConfigPath(env);
  const configPath = (values.config as string | undefined) ?? env("CUEPORT_CONFIG") ??
    (fallback && isFile(fallback) ? fallback : undefined);
  if (configPath) {
    for (const [name, value] of Object.entries(await readConfigFile(configPath))) {
      raw[name] = value;
      givenIn[name] = `in config file "${configPath}"`;
    }
  }
  for (const [name, spec] of SPECS) {
    const value = env(envName(name));
    if (value !== undefined && value !== "") {
      raw[name] = isSwitch(spec) ? ["1", "true", "yes"].includes(value.toLowerCase()) : value;
      givenIn[name] = envName(name);
    }
  }
  for (const [name, spec] of SPECS) {
    if (values[spec.flag] === undefined) continue;
    raw[name] = values[spec.flag];
    givenIn[name] = `--${spec.flag}`;
  }
  raw.dataDir ??= defaultDataDir();
  const parsed = Settings.safeParse(raw);
  if (!parsed.success) throw new Error(settingsRefusal(parsed.error.issues, raw, givenIn));
  return { help: false, settings: parsed.data };
}

/**
 * One line for every refused setting, each named with where it was given (the flag, the variable
 * or the config file; a default a rule between settings refuses, with both ways to give it): all
 * of them at once, not one a start.
 */
function settingsRefusal(
  issues: readonly z.core.$ZodIssue[],
  raw: Record<string, unknown>,
  givenIn: Record<string, string>,
): string {
  const said = new Set<string>();
  const parts: string[] = [];
  for (const issue of issues) {
    const setting = String(issue.path[0] ?? "");
    if (said.has(setting)) continue;
    said.add(setting);
    parts.push(
      `${issue.path.join(".")} (${givenIn[setting] ?? settingPlaces(setting)}): ` +
        `${settingIssueMessage(issue)} (given ${JSON.stringify(raw[setting])})`,
    );
  }
  return parts.length === 1
    ? `Invalid setting ${parts[0]}`
    : `Invalid settings: ${parts.join("; ")}`;
}

/**
 * The settings of the config file at `configPath`: one JSON object of known settings.
 * @throws {Error} naming the file and what is wrong with it
 */
async function readConfigFile(configPath: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await Deno.readTextFile(configPath);
  } catch (error) {
    throw new Error(`Cannot read config file "${configPath}": ${(error as Error).message}`);
  }
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `Cannot parse config file "${configPath}": not valid JSON: ${(error as Error).message}`,
    );
  }
  if (typeof file !== "object" || file === null || Array.isArray(file)) {
    throw new Error(`Config file "${configPath}" must hold one JSON object of settings`);
  }
  for (const key of Object.keys(file)) {
    if (!(key in SETTINGS)) {
      throw new Error(
        `Unknown setting "${key}" in config file "${configPath}"${suggest(key)}`,
      );
    }
  }
  return file as Record<string, unknown>;
}

/** ` (did you mean "x"?)` for a near miss of a setting's name, else nothing (the hint follows). */
function suggest(key: string): string {
  return didYouMean(key, Object.keys(SETTINGS));
}

/**
 * Where to look after a settings refusal: `cueport config check` for a config file's problem (it
 * lists them all), `cueport --help` for the rest; nothing for a file that cannot be read.
 */
export function settingsHint(message: string): string {
  if (message.startsWith("Cannot read config file")) return ""; // the file's own error says it
  return /config file "/.test(message)
    ? "(cueport config check FILE lists every problem of a config file)"
    : "(cueport --help lists the settings)";
}
