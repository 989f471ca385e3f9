/**
 * The operator credential: a random secret in `<dataDir>/auth/operator-token`,
 * readable only by the owner of the data dir. The operator commands
 * (`cueport pair`, `devices`, ...) send it from the show machine, so the
 * operator always gets in, whatever `localhostAuthExempt` says. It is
 * accepted from local addresses only.
 * @module
 */
import { writeFileAtomic } from "../../protocol/atomic_write.ts";

/** Where the operator credential is, relative to the data dir. */
export const OPERATOR_TOKEN_FILE = "auth/operator-token";

/** Prefix that tells the operator credential from a device token at a glance. */
export const OPERATOR_PREFIX = "cueport-operator-";

/** Loads the operator credential, creating it (owner-only) on first start. */
export async function loadOperatorToken(dataDir: string): Promise<string> {
  const path = `${dataDir}/${OPERATOR_TOKEN_FILE}`;
  try {
    const stored = (await Deno.readTextFile(path)).trim();
    if (stored.startsWith(OPERATOR_PREFIX) && stored.length > OPERATOR_PREFIX.length + 32) {
      return stored;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = OPERATOR_PREFIX +
    Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  await writeFileAtomic(path, token + "\n", { mode: 0o600 });
  return token;
}

/** Reads the operator credential for a command; null when it is missing or unreadable. */
export async function readOperatorToken(dataDir: string): Promise<string | null> {
  try {
    return (await Deno.readTextFile(`${dataDir}/${OPERATOR_TOKEN_FILE}`)).trim() || null;
  } catch {
    return null;
  }
}

/** Compares in time independent of where the strings differ. */
export function isSameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
