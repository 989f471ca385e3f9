/**
 * The launchd property list of `cueport service install` on macOS. By default
 * a LaunchDaemon: since macOS 15 a LaunchAgent needs the logged-in user's
 * Local Network consent and does not run while nobody is logged in, which a
 * show machine cannot depend on; a LaunchDaemon has neither limit. It runs as
 * an ordinary user (`UserName`), not as root. `--user` writes a LaunchAgent.
 * @module
 */
import { build } from "plist";

/** The job's label. */
export const LAUNCHD_LABEL = "dev.cueport.service";

/** What the property list is written for. */
export interface PlistOptions {
  /** The command that starts the service (program and arguments, before `serve`). */
  command: readonly string[];
  /** A LaunchAgent of the current user instead of a LaunchDaemon. */
  isUser: boolean;
  /** The data dir (also the working directory). */
  dataDir: string;
  /** The config file given to the service. */
  configFile: string;
  /** The log file (stdout and stderr). */
  logFile: string;
  /** The user a LaunchDaemon runs as. */
  userName?: string | undefined;
}

/** Where the property list goes. */
export function plistPath(isUser: boolean, home: string): string {
  return isUser
    ? `${home}/Library/LaunchAgents/${LAUNCHD_LABEL}.plist`
    : `/Library/LaunchDaemons/${LAUNCHD_LABEL}.plist`;
}

/** The data dir, config file and log file of a LaunchDaemon or a LaunchAgent. */
export function launchdPlaces(
  isUser: boolean,
  home: string,
): { dataDir: string; configFile: string; logFile: string } {
  const base = isUser ? `${home}/Library` : "/Library";
  const dataDir = `${base}/Application Support/Cueport`;
  return {
    dataDir,
    configFile: `${dataDir}/config.json`,
    logFile: `${base}/Logs/Cueport/cueport.log`,
  };
}

/** The property list's XML. */
export function launchdPlist(options: PlistOptions): string {
  const job: Record<string, unknown> = {
    Label: LAUNCHD_LABEL,
    ProgramArguments: [
      ...options.command,
      "serve",
      ...["--data-dir", options.dataDir, "--config", options.configFile],
    ],
    RunAtLoad: true,
    // Restarted when it fails, as systemd's Restart=on-failure; a clean stop stays stopped.
    KeepAlive: { SuccessfulExit: false },
    ThrottleInterval: 5,
    // A show's timing: no App Nap or background throttling.
    ProcessType: "Interactive",
    WorkingDirectory: options.dataDir,
    StandardOutPath: options.logFile,
    StandardErrorPath: options.logFile,
  };
  if (!options.isUser && options.userName) job.UserName = options.userName;
  return build(job as Parameters<typeof build>[0]);
}
