/**
 * What the security operations need of auth: the core's own description of
 * it. `server/auth` provides it (`AuthService` fits it); the core never
 * imports auth, so the two do not import each other (docs/architecture.md,
 * "The import graph").
 * @module
 */

/** A scope a device may be paired with (`SCOPES` in `operation.ts`). */
export type SecurityScope = "view" | "control" | "edit";

/** A paired device as the registry keeps it. */
export interface PairedDevice {
  deviceId: string;
  name: string;
  scopes: SecurityScope[];
  tokenId: string;
  pairedAt: string;
  address: string;
  origin?: "pairing" | "approval" | "osc" | "midi";
  lastUsedAt?: string;
  /** The SHA-256 of its token (never shown: `server/auth/devices.ts`). */
  tokenHash?: string;
  /** In a rig group: the rig that paired it. */
  pairedOn?: string;
}

/** A device token just issued. */
export interface IssuedToken {
  token: string;
  deviceId: string;
  scopes: SecurityScope[];
  expiresAt: string;
}

/** A local client waiting for the operator's approval. */
export interface WaitingApproval {
  requestId: string;
  address: string;
  deviceName: string;
  requestedAt: string;
}

/** Pairing codes, devices, approvals and the signing key, as the security operations use them. */
export interface SecurityService {
  codes: {
    /** A new one-time code; `expiresAt` in ms since the epoch. */
    issue(): { otp: string; expiresAt: number };
  };
  authenticator: {
    /** Exchanges a one-time code for a device token bound to `address`. */
    pair(
      otp: string,
      address: string,
      deviceName: string,
      scopes: SecurityScope[] | undefined,
      origin: "pairing" | "osc",
      lifetimeSeconds: number | undefined,
    ): Promise<IssuedToken>;
  };
  devices: {
    list(): PairedDevice[];
    /** False when no such device is paired. */
    revoke(deviceId: string): Promise<boolean>;
  };
  approvals: {
    pending(): WaitingApproval[];
    decide(requestId: string, approve: boolean): void;
  };
  /** A new signing key: every device token is revoked. */
  rotateKey(): Promise<void>;
}
