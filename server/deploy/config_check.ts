/**
 * `cueport config check [FILE]` reports every problem of a config file, each
 * with its key and the reason; `cueport config path` prints where the service
 * looks for one by default.
 * @module
 */
import { parseArgs } from "node:util";
import { didYouMean } from "../../lib/suggest.ts";
import { settingIssueMessage, SETTINGS, type SettingSpec } from "../../protocol/settings.ts";
import { defaultConfigPath } from "../config.ts";
import { argsMessage } from "./args_message.ts";

/** One problem of a config file: the key (null for the file as a whole) and why. */
export interface ConfigProblem {
  key: string | null;
  reason: string;
}

/** Usage of `cueport config`. */
export const CONFIG_USAGE = `Usage: cueport config check [FILE] | path
  check [FILE]   check a config file: every unknown key and bad value, with the reason;
                 exits 0 when it is good, 1 when not. FILE defaults to --config,
                 CUEPORT_CONFIG, else the default location (cueport config path)
  path           print the default location of the config file on this machine
The file is one JSON object; its keys are the settings' names (cueport --help, README).`;

/** Every problem of a config file's text; empty when the service would accept it. */
export function checkConfigText(text: string): ConfigProblem[] {
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch (error) {
    return [{ key: null, reason: `not valid JSON: ${(error as Error).message}` }];
  }
  if (typeof file !== "object" || file === null || Array.isArray(file)) {
    return [{ key: null, reason: "must hold one JSON object of settings" }];
  }
  const specs = SETTINGS as Record<string, SettingSpec>;
  const problems: ConfigProblem[] = [];
  for (const [key, value] of Object.entries(file)) {
    const spec = specs[key];
    if (!spec) {
      const hint = didYouMean(key, Object.keys(SETTINGS)) || " (cueport --help lists the settings)";
      problems.push({ key, reason: `unknown setting${hint}` });
      continue;
    }
    const parsed = spec.schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      problems.push({
        key,
        reason: `${settingIssueMessage(issue)} (given ${JSON.stringify(value)})`,
      });
    }
  }
  return problems;
}

/** Runs `cueport config ...`; returns the exit code. */
export async function runConfigCommand(
  args: string[],
  print: (line: string) => void = console.log,
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { config: { type: "string" }, help: { type: "boolean" } },
      allowPositionals: true,
    });
  } catch (error) {
    print(`cueport config: ${argsMessage(error)}\n\n${CONFIG_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [sub, fileArg] = positionals;
  if (values.help || sub === undefined) {
    print(CONFIG_USAGE);
    return values.help ? 0 : 2;
  }
  const fallback = defaultConfigPath(env);
  if (sub === "path") {
    print(fallback ?? "No default location: neither HOME nor APPDATA is set");
    return 0;
  }
  if (sub !== "check") {
    print(`cueport config: unknown subcommand "${sub}"\n\n${CONFIG_USAGE}`);
    return 2;
  }
  const explicit = fileArg ?? values.config ?? env("CUEPORT_CONFIG");
  const path = explicit ?? fallback;
  if (!path) {
    print("cueport config check: no file given and no default location");
    return 2;
  }
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (explicit === undefined && error instanceof Deno.errors.NotFound) {
      print(`No config file at ${path}: the defaults apply`);
      return 0;
    }
    print(`${path}: cannot read: ${(error as Error).message}`);
    return 1;
  }
  const problems = checkConfigText(text);
  if (problems.length === 0) {
    const count = Object.keys(JSON.parse(text)).length;
    print(`${path}: OK (${count} setting${count === 1 ? "" : "s"})`);
    return 0;
  }
  for (const { key, reason } of problems) {
    print(key === null ? `${path}: ${reason}` : `${path}: "${key}": ${reason}`);
  }
  return 1;
}
