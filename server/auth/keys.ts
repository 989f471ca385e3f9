/**
 * The per-installation signing key: 32 random bytes created on first start in
 * `<dataDir>/auth/signing-key.json`, owner-only. Rotating it revokes every token.
 *
 * A damaged key file is moved aside (owner-only, for the operator) and a new
 * key is made, as a rotation would: no copies of the secret are kept, and an
 * older key would not help, since every token of the current one was signed
 * with the current one. The devices then pair again (`openAuth` forgets them).
 * @module
 */
import { z } from "zod";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import type { DataProblem } from "../../protocol/library.ts";
import { jsonParser, readRecovering } from "../../lib/recover_file.ts";

const KeyFile = z.object({ key: z.string() });

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** The key of the file's text; throws saying what is wrong. */
function parseKey(text: string): Uint8Array {
  const { key } = jsonParser(KeyFile)(text);
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(key);
  } catch {
    throw new Error("key: not base64");
  }
  if (bytes.length !== 32) throw new Error(`key: ${bytes.length} bytes, not 32`);
  return bytes;
}

/**
 * Loads the key, creating it (or replacing it, with `rotate`) when asked or missing; a
 * damaged one is replaced too, its problem pushed to `options.problems`.
 */
export async function loadSigningKey(
  dataDir: string,
  options: { rotate?: boolean; problems?: DataProblem[] } = {},
): Promise<Uint8Array> {
  const path = `${dataDir}/auth/signing-key.json`;
  if (!options.rotate) {
    const read = await readRecovering(path, { dataDir, parse: parseKey, keep: 0, mode: 0o600 });
    if (read.value) return read.value;
    if (read.problem) options.problems?.push(read.problem);
  }
  const key = crypto.getRandomValues(new Uint8Array(32));
  await writeJsonAtomic(path, {
    algorithm: "HS256",
    key: toBase64(key),
    createdAt: new Date().toISOString(),
  }, {
    mode: 0o600,
  });
  return key;
}
