/**
 * The auth pieces of one installation, opened from its data dir: signing
 * key, device registry, one-time codes and the authenticator.
 * @module
 */
import { removeStaleTemps } from "../../lib/atomic_write.ts";
import type { DataProblem } from "../../protocol/library.ts";
import { problemLine } from "../../lib/recover_file.ts";
import { Approvals, type AskPlayer } from "./approvals.ts";
import { DeviceRegistry } from "./devices.ts";
import { loadSigningKey } from "./keys.ts";
import { loadOperatorToken } from "./operator.ts";
import { PairingCodes } from "./pairing.ts";
import { TokenAuthenticator } from "./token_authenticator.ts";

/** Auth settings. */
export interface AuthSettings {
  localhostAuthExempt: boolean;
  tokenLifetimeDays: number;
}

/** Everything auth, for the transports and routes. */
export interface AuthService {
  authenticator: TokenAuthenticator;
  approvals: Approvals;
  devices: DeviceRegistry;
  codes: PairingCodes;
  settings: AuthSettings;
  /** Makes a new signing key and forgets every device: all tokens stop working, their sockets close. */
  rotateKey(): Promise<void>;
  /** The auth files found damaged at open (device registry, signing key, operator credential). */
  problems: DataProblem[];
}

/** Opens (creating on first start) the installation's auth data. */
export async function openAuth(
  dataDir: string,
  settings: AuthSettings,
  options: { askPlayer: AskPlayer; log?: (message: string) => void },
): Promise<AuthService> {
  const log = options.log ?? (() => {});
  // Temp files of writes a crash interrupted (the targets themselves are whole).
  await removeStaleTemps(`${dataDir}/auth`);
  const approvals = new Approvals(options.askPlayer);
  const problems: DataProblem[] = [];
  const key = await loadSigningKey(dataDir, { problems });
  const devices = await DeviceRegistry.open(dataDir);
  // A new key (the old one damaged): every token of the old one is void, the devices pair again.
  if (problems.length > 0) await devices.clear();
  if (devices.problem) problems.push(devices.problem);
  const operatorToken = await loadOperatorToken(dataDir, problems);
  const codes = new PairingCodes({ log });
  const authenticator = new TokenAuthenticator({
    key,
    devices,
    codes,
    tokenLifetimeSeconds: Math.round(settings.tokenLifetimeDays * 86_400),
    approvals,
    operatorToken,
  });
  const rotateKey = async () => {
    authenticator.setKey(await loadSigningKey(dataDir, { rotate: true }));
    await devices.clear();
    log("Signing key rotated: every device token is revoked");
  };
  return { authenticator, approvals, devices, codes, settings, rotateKey, problems };
}

/** The one log line of an auth file found damaged: which, what is wrong, what is served instead. */
export function authDamageLine(problem: DataProblem): string {
  const fallback = problem.file.endsWith("devices.json")
    ? "the device registry starts empty; every device pairs again"
    : problem.file.endsWith("signing-key.json")
    ? "a new signing key; every device token stops working and the devices pair again"
    : "a new operator credential (the operator commands read it from the file)";
  return problemLine(problem, fallback);
}
