/**
 * `cueport service install | uninstall | status [--user] [--dry-run]`: the
 * service as a systemd unit (Linux) or a launchd job (macOS), written,
 * enabled and started; removed again; or asked how it is.
 * @module
 */
import { outputAccountCommand } from "./output_account.ts";
import { parseArgs } from "node:util";
import { SERVICE_FLAGS } from "./permissions.ts";
import { systemdUnit, UNIT_NAME, unitPath } from "./systemd_unit.ts";
import { LAUNCHD_LABEL, launchdPlaces, launchdPlist, plistPath } from "./launchd_plist.ts";
import { runStatusCommand } from "./status_command.ts";
import { installedDataDirs } from "./places.ts";
import { argsMessage } from "./args_message.ts";

/** Usage of `cueport service`. */
export const SERVICE_USAGE = `Usage: cueport service install | uninstall [--user] [--dry-run]
       cueport service status [--user] [--data-dir DIR] [--http-port N]
  install     write the service's unit (Linux: systemd, /etc/systemd/system/cueport.service)
              or job (macOS: launchd, /Library/LaunchDaemons/${LAUNCHD_LABEL}.plist),
              enable it and start it; needs root (sudo) unless --user
  uninstall   stop and disable it, remove the file; the data dir stays
  status      whether it is enabled and running, then cueport status of its data dir
              (--data-dir DIR or --http-port N: of that service instead)
  --user      a user unit (systemctl --user) or a LaunchAgent instead: runs only while
              the user is logged in (macOS: and needs their Local Network consent)
  --dry-run   print what would be written and run, change nothing
  --run-as U  macOS: the user the LaunchDaemon runs as (default: the user behind sudo)
See docs/deployment.md.`;

/** One step of an install or uninstall. */
type Step =
  | { kind: "write"; path: string; text: string; ifMissing?: boolean }
  | { kind: "mkdir"; path: string }
  | { kind: "remove"; path: string }
  | { kind: "run"; command: string[]; mayFail?: boolean };

/** The command that starts this Cueport: the binary itself, or `deno run` of this checkout. */
export function selfCommand(): string[] {
  if (Deno.build.standalone) return [Deno.execPath()];
  const path = (name: string) =>
    decodeURIComponent(new URL(`../../${name}`, import.meta.url).pathname);
  return [Deno.execPath(), "run", ...SERVICE_FLAGS, "--config", path("deno.json"), path("main.ts")];
}

/** Folders a system unit's sandbox hides from the service, and the setting that hides them. */
const HIDDEN = [
  { prefixes: ["/home/", "/root/", "/run/user/"], by: "ProtectHome=yes" },
  { prefixes: ["/tmp/", "/var/tmp/"], by: "PrivateTmp=yes" },
];

/** What to do instead, in one clause. */
const USE_BINARY = "build the binary (deno task compile), install it " +
  "(sudo install -m 0755 dist/cueport /usr/local/bin/cueport) and run " +
  "sudo cueport service install from there";

/** What a path of the unit's command is to its reader: a checkout's file is the checkout. */
function whatRuns(file: string): string {
  const checkout = /^(.*)\/(?:deno\.jsonc?|main\.ts)$/.exec(file)?.[1];
  return checkout === undefined ? file : `the checkout in ${checkout}`;
}

/**
 * Why the service that `install` would write could not start, or null: the files of
 * `command` where the system unit's sandbox hides them (ProtectHome, PrivateTmp), a source
 * checkout under a system unit (its user, a DynamicUser, has no Deno cache of npm packages),
 * or a command in a temporary folder or in npx's cache, which may be gone tomorrow.
 */
export function installProblem(
  command: readonly string[],
  options: { isUser: boolean; standalone: boolean; os?: typeof Deno.build.os },
): string | null {
  const os = options.os ?? Deno.build.os;
  const files = command.filter((part) => part.startsWith("/"));
  if (os === "linux" && !options.isUser) {
    for (const file of files) {
      const hidden = HIDDEN.find((h) => h.prefixes.some((p) => file.startsWith(p)));
      if (hidden) {
        return `the service would run ${whatRuns(file)}, which its sandbox hides (${hidden.by}): ` +
          USE_BINARY;
      }
    }
    if (!options.standalone) {
      return "a system service cannot run a source checkout (its user has no Deno cache of " +
        `the npm packages): ${USE_BINARY}`;
    }
  }
  const temporary = files.find((f) => f.startsWith("/tmp/") || f.startsWith("/var/tmp/"));
  if (temporary) {
    const binary = USE_BINARY.replace(/sudo cueport service install/, "cueport service install");
    return `the service would run ${whatRuns(temporary)}, in a temporary folder that may not ` +
      `survive a reboot: ${binary}`;
  }
  const npx = files.find((f) => /[\/]_npx[\/]/.test(f));
  if (npx) {
    return `the service would run ${npx}, in npx's cache, which npm may clear: install Deno ` +
      `(https://deno.com) and run deno task start service install --user, or ${USE_BINARY}`;
  }
  return null;
}

/** The absolute path of a program in the usual folders, or null. */
function findTool(name: string): string | null {
  for (const dir of ["/usr/local/bin", "/usr/bin", "/bin", "/opt/homebrew/bin"]) {
    try {
      if (Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch { /* not here */ }
  }
  return null;
}

function env(name: string): string | null {
  try {
    return Deno.env.get(name) || null;
  } catch {
    return null;
  }
}

/** What `install` and `uninstall` do on this platform. */
export function serviceSteps(
  action: "install" | "uninstall",
  options: {
    isUser: boolean;
    command: string[];
    home: string;
    runAs?: string | null;
    /** The passwd file's text (tests); default: /etc/passwd. */
    readPasswd?: () => string;
  },
  os: typeof Deno.build.os = Deno.build.os,
): Step[] {
  const { isUser, command, home } = options;
  if (os === "linux") {
    const path = unitPath(isUser, home);
    const systemctl = (...args: string[]) => ["systemctl", ...(isUser ? ["--user"] : []), ...args];
    if (action === "uninstall") {
      return [
        { kind: "run", command: systemctl("disable", "--now", UNIT_NAME), mayFail: true },
        { kind: "remove", path },
        { kind: "run", command: systemctl("daemon-reload") },
      ];
    }
    const tools = ["ffmpeg", "renice", "ps"].map(findTool).filter((t): t is string => t !== null);
    // The output browser's user, for a player run as root (the unit's own user is dynamic).
    const account = isUser ? null : outputAccountCommand(options.readPasswd);
    return [
      ...(account ? [{ kind: "run" as const, command: account }] : []),
      { kind: "mkdir", path: path.slice(0, path.lastIndexOf("/")) },
      { kind: "write", path, text: systemdUnit({ command, isUser, tools }) },
      { kind: "run", command: systemctl("daemon-reload") },
      { kind: "run", command: systemctl("enable", "--now", UNIT_NAME) },
    ];
  }
  if (os === "darwin") {
    const path = plistPath(isUser, home);
    const domain = isUser ? `gui/${Deno.uid() ?? 501}` : "system";
    if (action === "uninstall") {
      return [
        {
          kind: "run",
          command: ["launchctl", "bootout", `${domain}/${LAUNCHD_LABEL}`],
          mayFail: true,
        },
        { kind: "remove", path },
      ];
    }
    const places = launchdPlaces(isUser, home);
    const userName = isUser ? undefined : options.runAs ?? undefined;
    const logDir = places.logFile.slice(0, places.logFile.lastIndexOf("/"));
    return [
      { kind: "mkdir", path: places.dataDir },
      { kind: "mkdir", path: logDir },
      { kind: "write", path: places.configFile, text: "{}\n", ifMissing: true },
      ...(userName
        ? [{ kind: "run" as const, command: ["chown", "-R", userName, places.dataDir, logDir] }]
        : []),
      { kind: "mkdir", path: path.slice(0, path.lastIndexOf("/")) },
      { kind: "write", path, text: launchdPlist({ command, isUser, ...places, userName }) },
      {
        kind: "run",
        command: ["launchctl", "bootout", `${domain}/${LAUNCHD_LABEL}`],
        mayFail: true,
      },
      { kind: "run", command: ["launchctl", "bootstrap", domain, path] },
    ];
  }
  throw new Error(
    `cueport service supports Linux (systemd) and macOS (launchd); on ${os} see docs/deployment.md`,
  );
}

async function runStep(step: Step, print: (line: string) => void): Promise<void> {
  switch (step.kind) {
    case "mkdir":
      await Deno.mkdir(step.path, { recursive: true });
      return;
    case "write":
      if (step.ifMissing) {
        try {
          await Deno.writeTextFile(step.path, step.text, { createNew: true });
        } catch (error) {
          if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
        }
        return;
      }
      await Deno.writeTextFile(step.path, step.text);
      print(`Wrote ${step.path}`);
      return;
    case "remove":
      await Deno.remove(step.path).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
      print(`Removed ${step.path}`);
      return;
    case "run": {
      const [program, ...args] = step.command;
      const out = await new Deno.Command(program!, { args, stdout: "inherit", stderr: "inherit" })
        .output();
      if (!out.success && !step.mayFail) {
        throw new Error(`${step.command.join(" ")} failed (exit ${out.code})`);
      }
    }
  }
}

function describeStep(step: Step): string {
  switch (step.kind) {
    case "mkdir":
      return `mkdir -p ${step.path}`;
    case "write":
      return `write ${step.path}${step.ifMissing ? " (if missing)" : ""}:\n${step.text}`;
    case "remove":
      return `rm ${step.path}`;
    case "run":
      return step.command.join(" ");
  }
}

/** Runs `cueport service ...`; returns the exit code. */
export async function runServiceCommand(
  args: string[],
  print: (line: string) => void = console.log,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        user: { type: "boolean" },
        "dry-run": { type: "boolean" },
        "run-as": { type: "string" },
        "data-dir": { type: "string" },
        "http-port": { type: "string" },
        help: { type: "boolean" },
      },
      allowPositionals: true,
    });
  } catch (error) {
    print(`cueport service: ${argsMessage(error)}\n\n${SERVICE_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const action = positionals[0];
  if (values.help) {
    print(SERVICE_USAGE);
    return 0;
  }
  const isUser = values.user === true;
  if (action === "status") {
    const target = [
      ...(values["data-dir"] ? ["--data-dir", values["data-dir"]] : []),
      ...(values["http-port"] ? ["--http-port", values["http-port"]] : []),
    ];
    return await serviceStatus(isUser, target, print);
  }
  if (values["data-dir"] !== undefined || values["http-port"] !== undefined) {
    // An installed service's data dir is its unit's (docs/deployment.md), not a flag's.
    print(`cueport service: --data-dir and --http-port are for status only\n\n${SERVICE_USAGE}`);
    return 2;
  }
  if (action !== "install" && action !== "uninstall") {
    print(SERVICE_USAGE);
    return 2;
  }
  return await installOrUninstall(action, {
    isUser,
    isDryRun: values["dry-run"] === true,
    runAs: values["run-as"] ?? env("SUDO_USER"),
  }, print);
}

/** Installs or uninstalls the service (or, with `isDryRun`, prints how); returns the exit code. */
async function installOrUninstall(
  action: "install" | "uninstall",
  o: { isUser: boolean; isDryRun: boolean; runAs: string | null },
  print: (line: string) => void,
): Promise<number> {
  const { isUser } = o;
  const home = env("HOME") ?? env("USERPROFILE") ?? "";
  const command = selfCommand();
  const problem = action === "install"
    ? installProblem(command, { isUser, standalone: Deno.build.standalone })
    : null;
  let steps: Step[];
  try {
    steps = serviceSteps(action, {
      isUser,
      command,
      home,
      runAs: o.runAs,
    });
  } catch (error) {
    print(`cueport service: ${(error as Error).message}`);
    return 1;
  }
  if (o.isDryRun) {
    for (const step of steps) print(describeStep(step));
    if (problem) print(`cueport service install would refuse: ${problem}`);
    return problem ? 1 : 0;
  }
  if (problem) {
    print(`cueport service install: ${problem}`);
    return 1;
  }
  try {
    for (const step of steps) await runStep(step, print);
  } catch (error) {
    const hint = error instanceof Deno.errors.PermissionDenied
      ? isUser ? "" : " (run it with sudo, or use --user)"
      : "";
    print(`cueport service ${action}: ${(error as Error).message}${hint}`);
    return 1;
  }
  print(
    action === "install"
      ? "Installed and started; cueport service status shows how it is (docs/deployment.md)"
      : "Uninstalled; the data dir is kept",
  );
  return 0;
}

/**
 * `service status`: the unit's or job's state, then `cueport status` of the data dir `target`
 * names (`--data-dir`, `--http-port`), else of the installed service's.
 */
async function serviceStatus(
  isUser: boolean,
  target: string[],
  print: (line: string) => void,
): Promise<number> {
  const os = Deno.build.os;
  const ask = async (command: string[]) => {
    try {
      const out = await new Deno.Command(command[0]!, { args: command.slice(1), stderr: "null" })
        .output();
      return new TextDecoder().decode(out.stdout).trim();
    } catch {
      return "";
    }
  };
  if (os === "linux") {
    const systemctl = ["systemctl", ...(isUser ? ["--user"] : [])];
    const enabled = await ask([...systemctl, "is-enabled", UNIT_NAME]);
    const active = await ask([...systemctl, "is-active", UNIT_NAME]);
    print(
      enabled
        ? `${UNIT_NAME}: ${enabled}, ${active || "state unknown"}`
        : `${UNIT_NAME}: not installed (${systemctl.join(" ")} knows no such unit)`,
    );
  } else if (os === "darwin") {
    const domain = isUser ? `gui/${Deno.uid() ?? 501}` : "system";
    const state = (await ask(["launchctl", "print", `${domain}/${LAUNCHD_LABEL}`]))
      .split("\n").find((line) => /^\s*state =/.test(line))?.trim();
    print(`${LAUNCHD_LABEL}: ${state ?? "not loaded"}`);
  }
  if (target.length > 0) return await runStatusCommand(target, print);
  const dirs = installedDataDirs(env, os);
  const dataDir = isUser ? dirs.at(-1) : dirs[0];
  return await runStatusCommand(dataDir ? ["--data-dir", dataDir] : [], print);
}
