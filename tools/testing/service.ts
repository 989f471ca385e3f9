/**
 * Starts the real service in this process (real sockets, the bundled player
 * as a real subprocess on a virtual clock) on free loopback ports with the
 * fixture project.
 */
import { Settings } from "../../server/config.ts";
import { createLogger } from "../../server/log.ts";
import { type RunningService, startService } from "../../server/service.ts";
import { fixtureDataDir } from "./fixture.ts";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import type { Project } from "../../protocol/model.ts";

/** A JSON answer. */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** A started test service. */
export interface TestService {
  base: string;
  service: RunningService;
  dataDir: string;
  get(path: string, init?: RequestInit): Promise<JsonAnswer>;
  post(path: string, body: unknown, init?: RequestInit): Promise<JsonAnswer>;
  /** Moves the player's virtual clock. */
  advance(ms: number): Promise<number>;
  /** Stops the service and removes its data dir, unless `keepData` (to start again on it). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

async function answer(res: Response): Promise<JsonAnswer> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/**
 * The settings of a service under test: loopback, free ports, a virtual clock, no mDNS, no
 * output, quiet; `overrides` win.
 */
export function testSettings(dataDir: string, overrides: Partial<Settings> = {}): Settings {
  return Settings.parse({
    dataDir,
    host: "127.0.0.1",
    httpPort: 0,
    wsPort: 0,
    oscPort: 0,
    oscQueryPort: 0,
    // Off unless a test asks (0): parallel test services never race for 51736/51734.
    legacyHttpPort: "off",
    legacyWsPort: "off",
    // Off unless a test asks (`freeMidiPort()`): parallel test services never race for 5004/5005.
    midiPort: 0,
    virtualClock: true,
    positionIntervalMs: 0,
    logLevel: "error",
    mdns: false, // port 5353 is shared by the whole suite: only the discovery tests advertise
    output: "none", // only the output's own tests start a browser (tests/player/output/)
    ...overrides,
  });
}

/** How long a test service waits for its player: a hang guard (waitReady ends at the player's ready). */
const PLAYER_START_GUARD_MS = 180_000;

/** Starts a service; `overrides` change settings; `demo` starts from an empty data dir (the demo project). */
export async function startTestService(
  overrides: Partial<Settings> = {},
  options: { demo?: boolean; projects?: Project[]; dataDir?: string } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ??
    (options.demo ? await Deno.makeTempDir({ prefix: "cueport-demo-" }) : await fixtureDataDir());
  for (const project of options.projects ?? []) {
    await writeJsonAtomic(`${dataDir}/projects/${project.id}/project.json`, project);
  }
  const settings = testSettings(dataDir, overrides);
  const service = await startService(settings, createLogger(settings.logLevel));
  // A hang guard, not a bound: a first start making the demo Project took over 20 s on a machine
  // kept busy by stress-ng and other tests.
  if (!(await service.supervisor.waitReady(PLAYER_START_GUARD_MS))) {
    throw new Error(`The player was not ready after ${PLAYER_START_GUARD_MS / 1000} s`);
  }
  const base = `http://127.0.0.1:${service.ports.http}`;
  return {
    base,
    service,
    dataDir,
    get: (path, init) => fetch(base + path, init).then(answer),
    post: (path, body, init) =>
      fetch(base + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
        ...init,
      }).then(answer),
    advance: (ms) => service.core.advanceClock(ms),
    async stop({ keepData = false } = {}) {
      await service.shutdown();
      if (!keepData) await Deno.remove(dataDir, { recursive: true });
    },
  };
}
