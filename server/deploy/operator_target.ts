/**
 * How the operator commands (`server/cli.ts`, `server/deploy/status_command.ts`)
 * reach the running service: its port and operator credential found through
 * its data dir, and one request to its local API. Apart from both, so that
 * neither imports the other.
 * @module
 */
import { readOperatorToken } from "../auth/operator.ts";
import { defaultDataDir, envName } from "../config.ts";
import { type InstanceInfo, runningInstance } from "../startup.ts";
import { installedDataDirs } from "./places.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

/** Where and how the commands reach the running service. */
export interface Target {
  port: number;
  /** The data dir the service was found through, if any. */
  dataDir: string | null;
  /** The instance running with that data dir (its lock held), if any. */
  running: InstanceInfo | null;
  /** True when the port was given (`--http-port`): it is asked whatever holds the lock. */
  portGiven: boolean;
  /** The operator credential (`auth/operator-token`), when readable. */
  token: string | null;
}

function envOrNull(name: string): string | null {
  try {
    return Deno.env.get(name) || null;
  } catch {
    return null; // no permission to read the environment
  }
}

/**
 * The data dir the service uses by default; without permission to look, the usual place. When
 * no service has written its ports there, the data dir of an installed service that has
 * (`cueport service install`), so `sudo cueport pair` finds a system service.
 */
async function dataDirOf(flag: string | undefined): Promise<string | null> {
  if (flag) return flag;
  let dir: string | null;
  try {
    dir = envOrNull(envName("dataDir")) ?? defaultDataDir();
  } catch {
    dir = null;
  }
  if (dir !== null && await runningInstance(dir)) return dir;
  for (const candidate of installedDataDirs(envOrNull)) {
    if (await runningInstance(candidate)) return candidate;
  }
  return dir;
}

/**
 * Finds the running service's port and operator credential through its data dir: the
 * service that holds the data dir's lock, never whatever answers on a port (unless
 * `--http-port` names one).
 */
export async function findTarget(
  values: { "data-dir"?: string; "http-port"?: string },
): Promise<Target> {
  const dataDir = await dataDirOf(values["data-dir"]);
  const running = dataDir ? await runningInstance(dataDir) : null;
  const portGiven = values["http-port"] !== undefined;
  const port = portGiven
    ? Number(values["http-port"])
    : running?.ports?.http ?? SETTING_DEFAULTS.httpPort;
  const token = dataDir ? await readOperatorToken(dataDir) : null;
  return { port, dataDir, token, running, portGiven };
}

/** One request to the running service's local API; throws its error message. */
export async function call(
  target: Target,
  method: string,
  path: string,
  body?: unknown,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = await send(target, path, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(answer?.error?.message ?? `HTTP ${res.status}`);
  return answer;
}

/**
 * Sends a request to the running service with the operator credential, as
 * `call` does, and answers the response as it is (a streamed body: `cueport show`).
 * @throws {Error} saying what to do when no service runs there or it cannot be reached
 */
export async function send(target: Target, path: string, init: RequestInit): Promise<Response> {
  const port = target.port;
  if (!target.portGiven && !target.running?.ports) {
    throw new Error(
      target.running
        ? `Cueport is starting with the data dir "${target.dataDir}": try again in a moment`
        : `No Cueport service runs with the data dir "${target.dataDir ?? "(none)"}": start it, ` +
          `or name its data dir with --data-dir (or its port with --http-port)`,
    );
  }
  const headers = new Headers(init.headers);
  if (target.token) headers.set("authorization", `Bearer ${target.token}`);
  try {
    return await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers });
  } catch {
    throw new Error(`Cannot reach Cueport on port ${port}: is the service running?`);
  }
}
