/**
 * Where an installed service keeps its data (`cueport service install`), for
 * the operator commands to find it when no `--data-dir` is given.
 * @module
 */

/** The data dirs of an installed service on this platform, system-wide first. */
export function installedDataDirs(
  env: (name: string) => string | null,
  os: typeof Deno.build.os = Deno.build.os,
): string[] {
  const home = env("HOME");
  switch (os) {
    case "linux": {
      const state = env("XDG_STATE_HOME") ?? (home ? `${home}/.local/state` : null);
      // systemd's StateDirectory=cueport: /var/lib for the system unit, ~/.local/state for --user.
      return ["/var/lib/cueport", ...(state ? [`${state}/cueport`] : [])];
    }
    case "darwin":
      return [
        "/Library/Application Support/Cueport",
        ...(home ? [`${home}/Library/Application Support/Cueport`] : []),
      ];
    default:
      return [];
  }
}
