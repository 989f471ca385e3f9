/**
 * Operator commands that talk to the running service over its local-only
 * API (`CLI_USAGE` lists them): pairing codes, devices, approvals, key
 * rotation. They find the service and its operator credential in its data dir.
 * @module
 */
import { parseArgs } from "node:util";
import { readOperatorToken } from "./auth/operator.ts";
import { defaultDataDir, envName } from "./config.ts";
import { readInstanceInfo } from "./startup.ts";
import { pairingText } from "./web/pairing_text.ts";

/** The operator commands `runCli` knows. */
export const CLI_COMMANDS: readonly string[] = [
  "pair",
  "devices",
  "revoke",
  "approvals",
  "approve",
  "deny",
  "rotate-key",
];

/** Usage of the operator commands. */
export const CLI_USAGE =
  `Usage: cueport pair | devices | revoke <deviceId> | approvals | approve <id> | deny <id> | rotate-key [--http-port N]
  pair              print a one-time pairing code (valid 5 minutes) for a new device, the
                    web remote's URL on each LAN address and a QR code to scan
  devices           list paired devices
  revoke DEVICE_ID  revoke a device: its token stops working and its connections close
  approvals         list local clients waiting for approval (with --approval wait)
  approve ID, deny ID   decide a waiting approval
  rotate-key        new signing key: every paired device must pair again
  --data-dir DIR     the service's data dir (default: CUEPORT_DATA_DIR or the usual place);
                    the commands read the service's port and the operator credential there
  --http-port N     the running service's HTTP port (default: the one the service wrote in
                    its data dir, else 17736)`;

/** Where and how the commands reach the running service. */
interface Target {
  port: number;
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

/** The data dir the service uses by default; without permission to look, the usual place. */
function dataDirOf(flag: string | undefined): string | null {
  if (flag) return flag;
  try {
    return envOrNull(envName("dataDir")) ?? defaultDataDir();
  } catch {
    return null;
  }
}

async function findTarget(values: { "data-dir"?: string; "http-port"?: string }): Promise<Target> {
  const dataDir = dataDirOf(values["data-dir"]);
  const info = dataDir ? await readInstanceInfo(dataDir) : null;
  const port = values["http-port"] !== undefined
    ? Number(values["http-port"])
    : info?.ports?.http ?? 17736;
  return { port, token: dataDir ? await readOperatorToken(dataDir) : null };
}

async function call(target: Target, method: string, path: string, body?: unknown) {
  let res: Response;
  const port = target.port;
  try {
    res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: target.token ? { authorization: `Bearer ${target.token}` } : {},
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new Error(`Cannot reach Cueport on port ${port}: is the service running?`);
  }
  const answer = await res.json();
  if (!res.ok) throw new Error(answer?.error?.message ?? `HTTP ${res.status}`);
  return answer;
}

/** Runs one operator command; returns the process exit code. */
export async function runCli(
  command: string,
  args: string[],
  print = console.log,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        "http-port": { type: "string" },
        "data-dir": { type: "string" },
        help: { type: "boolean" },
      },
      allowPositionals: true,
    });
  } catch (error) {
    print(`cueport ${command}: ${(error as Error).message}\n\n${CLI_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    print(CLI_USAGE);
    return 0;
  }
  const target = await findTarget(values);
  try {
    switch (command) {
      case "pair": {
        const { otp, expiresAt } = await call(target, "POST", "/api/v1/pair/code");
        print(`Pairing code: ${otp}  (valid until ${expiresAt})`);
        print(await pairingText(target.port, otp));
        return 0;
      }
      case "devices": {
        const { devices } = await call(target, "GET", "/api/v1/devices");
        if (devices.length === 0) print("No paired devices");
        for (const d of devices) {
          print(
            `${d.deviceId}  ${d.name}  scopes=${
              d.scopes.join(",")
            }  paired ${d.pairedAt} from ${d.address}`,
          );
        }
        return 0;
      }
      case "revoke": {
        const deviceId = positionals[0];
        if (!deviceId) {
          print(CLI_USAGE);
          return 2;
        }
        await call(target, "DELETE", `/api/v1/devices/${encodeURIComponent(deviceId)}`);
        print(`Revoked ${deviceId}`);
        return 0;
      }
      case "rotate-key": {
        const { revoked } = await call(target, "POST", "/api/v1/auth/rotate-key");
        print(`Signing key rotated; ${revoked} device(s) revoked`);
        return 0;
      }
      case "approvals": {
        const { approvals } = await call(target, "GET", "/api/v1/approvals");
        if (approvals.length === 0) print("No client is waiting for approval");
        for (const a of approvals) {
          print(`${a.requestId}  ${a.deviceName}  from ${a.address}  since ${a.requestedAt}`);
        }
        return 0;
      }
      case "approve":
      case "deny": {
        const requestId = positionals[0];
        if (!requestId) {
          print(CLI_USAGE);
          return 2;
        }
        await call(target, "POST", `/api/v1/approvals/${encodeURIComponent(requestId)}`, {
          approve: command === "approve",
        });
        print(`${command === "approve" ? "Approved" : "Denied"} ${requestId}`);
        return 0;
      }
    }
  } catch (error) {
    print(`cueport ${command}: ${(error as Error).message}`);
    return 1;
  }
  print(CLI_USAGE);
  return 2;
}
