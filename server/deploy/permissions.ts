/**
 * The one list of the service's runtime flags: the permissions the compiled
 * binary embeds and its V8 flags. `deno task compile`, `deno task start` and
 * `deno task test` are written from it (`deno task permissions` rewrites them
 * in deno.json; `tests/server/deploy/permissions_test.ts` fails when they
 * drift), and the permission test, the smoke test, the reliability probes, the
 * benches and `cueport service install` (outside the binary) run the service
 * with it. Each flag is justified in docs/deployment.md.
 * @module
 */

/**
 * The environment variables the service reads, and nothing else: its settings, the
 * platform's folders, systemd's readiness and watchdog, the user a LaunchDaemon runs as,
 * and the switches npm packages read when they load (`ws`; imagescript in the media worker).
 */
export const SERVICE_ENV: readonly string[] = [
  "CUEPORT_*",
  "HOME",
  "USERPROFILE",
  "APPDATA",
  "XDG_DATA_HOME",
  "XDG_CONFIG_HOME",
  "XDG_STATE_HOME",
  "CONFIGURATION_DIRECTORY",
  "NOTIFY_SOCKET",
  "WATCHDOG_USEC",
  "WATCHDOG_PID",
  "SUDO_USER",
  "WS_NO_BUFFER_UTIL",
  "WS_NO_UTF_8_VALIDATE",
  "IMAGESCRIPT_WASM_SIMD",
  "CODECS_FORCE_WASM",
  // The bundled player's output (player/output/browser.ts): where its browser is, and a screen.
  "PATH",
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "PROGRAMFILES",
  "PROGRAMFILES(X86)",
  "LOCALAPPDATA",
  // The browser's screen when it runs as the player's own account (player/output/browser_process.ts),
  // and node:child_process's coverage switch, which it reads at each spawn of the browser (the
  // only way Deno hands a child the fds of its DevTools pipe).
  "XAUTHORITY",
  "NODE_V8_COVERAGE",
];

/**
 * Read by the tests' own peers, never by the service: `dnssd`'s debug
 * switches (the second mDNS browser of the discovery tests), and the MCP
 * SDK's stdio client (`which`'s platform check, the variables it passes on
 * to the command it starts, and `node:child_process`'s coverage switch). The test task adds them; the permission test
 * runs the service with `SERVICE_FLAGS` alone.
 */
export const TEST_PEER_ENV: readonly string[] = [
  "DEBUG",
  "VERBOSE",
  "OSTYPE",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  // puppeteer-core, the web remote's browser tests.
  "PUPPETEER_*",
];

/**
 * The system information the service reads: its names in the Host check, mDNS's interfaces, a
 * rig's default name and addresses in its group (docs/rigs.md; etcd is reached with `--allow-net`),
 * and the free space of the data dir's disk before a rig copies the group's media (`statfs`).
 */
export const SERVICE_SYS: readonly string[] = ["networkInterfaces", "hostname", "statfs"];

/** The permissions the binary embeds (docs/deployment.md, "Permissions", says why each). */
export const SERVICE_PERMISSIONS: readonly string[] = [
  "--allow-net",
  "--allow-read",
  "--allow-write",
  `--allow-env=${SERVICE_ENV.join(",")}`,
  "--allow-run",
  `--allow-sys=${SERVICE_SYS.join(",")}`,
];

/** The V8 flags: a small young generation keeps the resident memory low. */
export const SERVICE_V8_FLAGS: readonly string[] = ["--v8-flags=--max-semi-space-size=4"];

/**
 * Unstable APIs: unix datagrams for systemd's notify socket (`sd_notify.ts`). deno.json's
 * `"unstable"` grants it too; named here so the compiled binary carries it whatever the config.
 * `--unstable-no-legacy-abort`: a request's `signal` aborts only when its client goes before
 * the answer is sent (an abandoned picture's job is cancelled, `server/media/`), not after every
 * answer, and Deno prints no warning line about it on stderr, which holds only log lines.
 */
export const SERVICE_UNSTABLE: readonly string[] = ["--unstable-net", "--unstable-no-legacy-abort"];

/** Every runtime flag of the service, as `deno run` takes them. */
export const SERVICE_FLAGS: readonly string[] = [
  ...SERVICE_V8_FLAGS,
  ...SERVICE_UNSTABLE,
  ...SERVICE_PERMISSIONS,
];

/** Files the compiled binary carries besides the module graph (the workers). */
const COMPILE_INCLUDES = [
  "--include",
  "server/media/render/worker.ts",
  "--include",
  "server/net/udp_port_worker.ts",
];

/** The flags of `deno test`: the service's, and the environment the tests' peers read. */
export function testFlags(): string[] {
  const env = `--allow-env=${SERVICE_ENV.join(",")}`;
  return SERVICE_FLAGS.map((flag) =>
    flag === env ? `--allow-env=${[...SERVICE_ENV, ...TEST_PEER_ENV].join(",")}` : flag
  );
}

/**
 * The tasks of deno.json that run or build the service, as written from the lists above.
 * `test` runs `tools/test.ts`, which finds the tests' peers and runs `deno test` with
 * `testFlags()` (it writes the JUnit report the suite's processes make into one).
 */
export function serviceTasks(): Record<"start" | "test" | "compile", string> {
  // Quoted for deno task's shell, which would expand the `*` of `CUEPORT_*` as a file pattern.
  const flags = SERVICE_FLAGS.map((flag) => flag.includes("*") ? `'${flag}'` : flag).join(" ");
  return {
    start: `deno run ${flags} main.ts`,
    test:
      "deno run --allow-run --allow-read --allow-write --allow-env --allow-sys=uid tools/test.ts",
    compile: `deno compile ${flags} ${COMPILE_INCLUDES.join(" ")} --output dist/cueport main.ts`,
  };
}
