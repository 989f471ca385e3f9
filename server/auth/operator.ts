/**
 * The operator credential: a random secret in `<dataDir>/auth/operator-token`,
 * readable only by the owner of the data dir. The operator commands
 * (`cueport pair`, `devices`, ...) send it from the show machine, so the
 * operator always gets in, whatever `localhostAuthExempt` says. It is
 * accepted from local addresses only.
 * @module
 */
import { writeFileAtomic } from "../../lib/atomic_write.ts";
import type { DataProblem } from "../../protocol/library.ts";
import { readRecovering } from "../../lib/recover_file.ts";

/** Where the operator credential is, relative to the data dir. */
export const OPERATOR_TOKEN_FILE = "auth/operator-token";

/** Prefix that tells the operator credential from a device token at a glance. */
export const OPERATOR_PREFIX = "cueport-operator-";

/** The credential of the file's text; throws saying what is wrong. */
function parseToken(text: string): string {
  const stored = text.trim();
  if (stored.startsWith(OPERATOR_PREFIX) && stored.length > OPERATOR_PREFIX.length + 32) {
    return stored;
  }
  throw new Error(`not an operator credential (${OPERATOR_PREFIX}... of 64 hex digits)`);
}

/**
 * Loads the operator credential, creating it (owner-only) on first start. A damaged one
 * is moved aside and a new one made (the operator commands read it from the file each
 * time, so nothing else changes); its problem is pushed to `problems`.
 */
export async function loadOperatorToken(
  dataDir: string,
  problems?: DataProblem[],
): Promise<string> {
  const path = `${dataDir}/${OPERATOR_TOKEN_FILE}`;
  const read = await readRecovering(path, { dataDir, parse: parseToken, keep: 0, mode: 0o600 });
  if (read.value) return read.value;
  if (read.problem) problems?.push(read.problem);
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
