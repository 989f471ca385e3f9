/**
 * The per-installation signing key: 32 random bytes created on first start in
 * `<dataDir>/auth/signing-key.json`, owner-only. Rotating it revokes every token.
 * @module
 */
import { writeJsonAtomic } from "../../protocol/atomic_write.ts";

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** Loads the key, creating it (or replacing it, with `rotate`) when asked or missing. */
export async function loadSigningKey(
  dataDir: string,
  options: { rotate?: boolean } = {},
): Promise<Uint8Array> {
  const path = `${dataDir}/auth/signing-key.json`;
  if (!options.rotate) {
    try {
      const stored = JSON.parse(await Deno.readTextFile(path));
      const key = fromBase64(stored.key);
      if (key.length === 32) return key;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
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
