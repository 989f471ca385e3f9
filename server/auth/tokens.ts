/**
 * Device tokens: JWTs signed HS256 with the installation key, carrying the
 * device id, its name, its scopes and a token id the registry checks.
 * @module
 */
import { decodeJwt, errors, jwtVerify, SignJWT } from "jose";
import { CueportError } from "../core/errors.ts";

/** What a device may do. */
export type Scope = "view" | "control" | "edit";

/** Every scope, the default at pairing. */
export const ALL_SCOPES: readonly Scope[] = ["view", "control", "edit"];

/** The claims of a device token. */
export interface DeviceClaims {
  deviceId: string;
  deviceName: string;
  scopes: Scope[];
  tokenId: string;
  expiresAt: number;
}

/** Signs a token valid for `lifetimeSeconds` from `now` (ms). */
export async function issueToken(
  key: Uint8Array,
  claims: Omit<DeviceClaims, "expiresAt">,
  options: { lifetimeSeconds: number; now: number },
): Promise<{ token: string; expiresAt: number }> {
  const issuedAt = Math.floor(options.now / 1000);
  const expiresAt = issuedAt + options.lifetimeSeconds;
  const token = await new SignJWT({ name: claims.deviceName, scopes: claims.scopes })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.deviceId)
    .setJti(claims.tokenId)
    .setIssuer("cueport")
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(key);
  return { token, expiresAt: expiresAt * 1000 };
}

/**
 * Verifies signature, algorithm (HS256 only: `alg: none` and others are refused),
 * issuer and expiry at `now` (ms).
 * @throws {CueportError} AUTHENTICATION_FAILED saying why
 */
export async function verifyToken(
  key: Uint8Array,
  token: string,
  now: number,
): Promise<DeviceClaims> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ["HS256"],
      issuer: "cueport",
      currentDate: new Date(now),
    });
    const scopes = Array.isArray(payload.scopes)
      ? payload.scopes.filter((s): s is Scope => ALL_SCOPES.includes(s))
      : [];
    if (!payload.sub || !payload.jti) throw new Error("claims missing");
    return {
      deviceId: payload.sub,
      deviceName: typeof payload.name === "string" ? payload.name : payload.sub,
      scopes,
      tokenId: payload.jti,
      expiresAt: (payload.exp ?? 0) * 1000,
    };
  } catch (error) {
    const reason = error instanceof errors.JWTExpired
      ? "the token has expired"
      : "the token is not valid";
    throw new CueportError("AUTHENTICATION_FAILED", `Invalid token: ${reason}; pair again`);
  }
}

/** The SHA-256 of a token, hex: what a rig group shares of it (`Device.tokenHash`). */
export async function tokenHash(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The device id, token id and expiry (ms) a token says, its signature unchecked: only for a
 * token whose hash matched a device's `tokenHash` (the hash vouches for every byte); null when it
 * is not a JWT of ours.
 */
export function unverifiedClaims(
  token: string,
): { deviceId: string; tokenId: string; expiresAt: number } | null {
  try {
    const payload = decodeJwt(token);
    if (!payload.sub || !payload.jti || typeof payload.exp !== "number") return null;
    return { deviceId: payload.sub, tokenId: payload.jti, expiresAt: payload.exp * 1000 };
  } catch {
    return null;
  }
}
