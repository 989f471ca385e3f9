/**
 * The systemd unit of `cueport service install` on Linux: `Type=notify`
 * (readiness from `sd_notify.ts`), restart on failure, the data dir as the
 * unit's `StateDirectory`, the config in its `ConfigurationDirectory`, and a
 * sandbox (docs/deployment.md says why each line is there).
 * @module
 */

/** What the unit is written for. */
export interface UnitOptions {
  /** The command that starts the service (program and arguments, before `serve`). */
  command: readonly string[];
  /** A user unit (`systemctl --user`) instead of a system-wide one. */
  isUser: boolean;
  /** Programs the service may run besides itself (ffmpeg, renice, ps), as absolute paths. */
  tools: readonly string[];
}

/** The unit's name. */
export const UNIT_NAME = "cueport.service";

/** Quotes one word of a command line for systemd (`systemd.service(5)`, "Command lines"). */
export function quoteForSystemd(word: string): string {
  const escaped = word.replaceAll("%", "%%").replaceAll("$", "$$$$");
  if (escaped !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped)) return escaped;
  return `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** Where the unit file goes. */
export function unitPath(isUser: boolean, home: string): string {
  return isUser ? `${home}/.config/systemd/user/${UNIT_NAME}` : `/etc/systemd/system/${UNIT_NAME}`;
}

/**
 * The sandbox of the system unit. A user unit gets only the lines that need no
 * privileges (a user manager cannot set up mount namespaces or drop capabilities everywhere).
 */
function sandbox(options: UnitOptions): string[] {
  const common = [
    "NoNewPrivileges=yes",
    // AF_NETLINK: listing the network interfaces (Host check, mDNS) goes through netlink.
    "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK",
    "SystemCallArchitectures=native",
    "SystemCallFilter=@system-service",
    "SystemCallFilter=~@privileged @mount @debug @cpu-emulation @obsolete @raw-io @reboot @swap",
    "SystemCallErrorNumber=EPERM",
    "LockPersonality=yes",
    "RestrictRealtime=yes",
    "RestrictSUIDSGID=yes",
    // MemoryDenyWriteExecute= is left off on purpose: V8's JIT writes machine code and runs it.
  ];
  if (options.isUser) return common;
  const program = options.command[0]!;
  return [
    ...common,
    "DynamicUser=yes",
    // Cameras: ffmpeg reads /dev/video*, which the video group may open.
    "SupplementaryGroups=video",
    "DevicePolicy=closed",
    "DeviceAllow=char-video4linux rw",
    "CapabilityBoundingSet=",
    "AmbientCapabilities=",
    "ProtectSystem=strict",
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "PrivateIPC=yes",
    "PrivateMounts=yes",
    "ProtectKernelTunables=yes",
    "ProtectKernelModules=yes",
    "ProtectKernelLogs=yes",
    "ProtectControlGroups=yes",
    "ProtectClock=yes",
    "ProtectHostname=yes",
    "ProtectProc=invisible",
    "ProcSubset=pid",
    "RestrictNamespaces=yes",
    "RemoveIPC=yes",
    "KeyringMode=private",
    "UMask=0077",
    // Run only itself (the player), ffmpeg, renice and ps (the media worker's thread ids); the
    // libraries they load must be mappable.
    "NoExecPaths=/",
    `ExecPaths=${
      [program, ...options.tools, "-/usr/lib", "-/usr/lib64", "-/lib", "-/lib64"]
        .map(quoteForSystemd).join(" ")
    }`,
  ];
}

/** The unit file's text. */
export function systemdUnit(options: UnitOptions): string {
  // %S is the unit's state folder (/var/lib, or ~/.local/state for a user unit): not quoted.
  const start = [
    ...[...options.command, "serve", "--data-dir"].map(quoteForSystemd),
    "%S/cueport",
    ...["--log-format", "json"],
  ];
  return [
    "# Written by `cueport service install`; docs/deployment.md explains each line.",
    "[Unit]",
    "Description=Cueport, the network control API of the show player",
    "Wants=network-online.target",
    "After=network-online.target",
    "",
    "[Service]",
    "Type=notify",
    "NotifyAccess=main",
    `ExecStart=${start.join(" ")}`,
    "Restart=on-failure",
    "RestartSec=2",
    "TimeoutStartSec=60",
    "TimeoutStopSec=20",
    "WatchdogSec=30",
    "StateDirectory=cueport",
    "StateDirectoryMode=0700",
    "ConfigurationDirectory=cueport",
    "LimitNOFILE=8192",
    ...sandbox(options),
    "",
    "[Install]",
    `WantedBy=${options.isUser ? "default.target" : "multi-user.target"}`,
    "",
  ].join("\n");
}
