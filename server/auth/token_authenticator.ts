/**
 * The authenticator of paired devices: tokens are verified and checked
 * against the device registry, a one-time code pairs a new device, and a
 * local client waiting for approval gets a token once approved. It exempts
 * nobody: the localhost exemption is the policy's, decided in one place
 * (`server/core/policy.ts`).
 * @module
 */
import { CueportError } from "../core/errors.ts";
import { type DeviceRegistry, newDeviceId } from "./devices.ts";
import {
  ApprovalDenied,
  type Authenticator,
  type Credentials,
  type Grant,
  isLocalAddress,
} from "./credentials.ts";
import type { Approvals } from "./approvals.ts";
import type { PairingCodes } from "./pairing.ts";
import {
  ALL_SCOPES,
  issueToken,
  type Scope,
  tokenHash,
  unverifiedClaims,
  verifyToken,
} from "./tokens.ts";
import type { Device } from "./devices.ts";
import { isSameSecret, OPERATOR_PREFIX } from "./operator.ts";

/** What the authenticator works with. */
export interface TokenAuthOptions {
  key: Uint8Array;
  devices: DeviceRegistry;
  codes: PairingCodes;
  tokenLifetimeSeconds: number;
  now?: () => number;
  /** Approval of local interactive clients without credentials; absent: they must bring a token. */
  approvals?: Approvals;
  /** The operator credential (`operator.ts`), accepted from local addresses only. */
  operatorToken?: string;
}

/**
 * Approved local clients kept in the registry (docs/security.md, "Local
 * approvals"): one that never came back with its token is forgotten after a
 * day, one that did after 30 days without it; at most 1,000.
 */
export const APPROVED_LIMITS = {
  maxEntries: 1000,
  idleMs: 30 * 86_400_000,
  neverUsedMs: 86_400_000,
} as const;

/** A new pairing: the token to keep, and for what device. */
export interface Pairing {
  token: string;
  deviceId: string;
  scopes: Scope[];
  expiresAt: string;
}

/** What a client sends to authenticate, by wire (the refusal of a client that sent nothing says it). */
const HOW_TO_AUTHENTICATE: Readonly<Record<NonNullable<Credentials["wire"]>, string>> = {
  http:
    "send a token (Authorization: Bearer <token>) or pair with a one-time code (POST /api/v1/pair)",
  websocket:
    'send {"type": "auth", "payload": {"token": "<token>"}}, or pair with {"type": "auth", "payload": {"otp": "<code>", "deviceName": "<name>"}}',
};

/** Lets in local clients and paired devices. */
export class TokenAuthenticator implements Authenticator {
  #o: TokenAuthOptions;
  #now: () => number;
  /**
   * Told of each device paired with a code, once it is in the registry and before the pairing is
   * answered: a rig group shares it with its other rigs (`server/rigs/pairing.ts`).
   */
  onpair: (device: Device) => Promise<void> = () => Promise.resolve();

  /** Builds the authenticator. */
  constructor(options: TokenAuthOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  async authenticate(credentials: Credentials): Promise<Grant> {
    if (credentials.token) return await this.#withToken(credentials.token, credentials.address);
    if (credentials.otp) {
      const pairing = await this.pair(
        credentials.otp,
        credentials.address,
        credentials.deviceName ?? "",
        [...ALL_SCOPES],
        "pairing",
        credentials.lifetimeSeconds,
      );
      return {
        token: pairing.token,
        device: credentials.deviceName ?? pairing.deviceId,
        deviceId: pairing.deviceId,
        scopes: pairing.scopes,
      };
    }
    if (isLocalAddress(credentials.address) && credentials.isInteractive && this.#o.approvals) {
      return await this.#withApproval(credentials, this.#o.approvals);
    }
    throw new CueportError(
      "AUTHENTICATION_FAILED",
      `Authentication required: ${HOW_TO_AUTHENTICATE[credentials.wire ?? "http"]}`,
    );
  }

  /** The grant of a token: the operator's credential (on the show machine only) or a device's. */
  async #withToken(token: string, address: string): Promise<Grant> {
    const operator = this.#o.operatorToken;
    if (operator && token.startsWith(OPERATOR_PREFIX)) {
      if (isLocalAddress(address) && isSameSecret(token, operator)) {
        return { device: "operator", scopes: [...ALL_SCOPES] };
      }
      throw new CueportError(
        "AUTHENTICATION_FAILED",
        "Invalid operator credential: it works only on the show machine, as written in the data dir",
      );
    }
    const claims = await verifyToken(this.#o.key, token, this.#now())
      .catch(async (error) => await this.#sharedClaims(token) ?? Promise.reject(error));
    const device = this.#o.devices.get(claims.deviceId);
    if (!device || device.tokenId !== claims.tokenId) {
      throw new CueportError(
        "AUTHENTICATION_FAILED",
        "Invalid token: the device was revoked; pair again",
      );
    }
    this.#o.devices.touch(device.deviceId, new Date(this.#now()).toISOString());
    return { device: device.name, deviceId: device.deviceId, scopes: device.scopes };
  }

  /**
   * The claims of a token this rig did not sign (another rig of its group paired the device):
   * accepted when its SHA-256 is the `tokenHash` of the device it names, and it has not expired.
   * @throws {CueportError} AUTHENTICATION_FAILED when it has expired
   */
  async #sharedClaims(token: string): Promise<{ deviceId: string; tokenId: string } | null> {
    const claims = unverifiedClaims(token);
    const hash = claims && this.#o.devices.get(claims.deviceId)?.tokenHash;
    if (!claims || !hash || !isSameSecret(await tokenHash(token), hash)) return null;
    if (claims.expiresAt <= this.#now()) {
      throw new CueportError(
        "AUTHENTICATION_FAILED",
        "Invalid token: the token has expired; pair again",
      );
    }
    return claims;
  }

  /** A local interactive client the operator approves on the show machine: its own entry and token. */
  async #withApproval(
    credentials: Credentials,
    approvals: NonNullable<TokenAuthOptions["approvals"]>,
  ): Promise<Grant> {
    const name = credentials.deviceName?.trim() || "Local client";
    if (!(await approvals.request(credentials.address, name))) throw new ApprovalDenied();
    // Each approved client gets its own entry and token: two local tools never revoke
    // each other; a client that comes back with its token keeps its entry.
    const pairing = await this.#register(
      credentials.address,
      name,
      [...ALL_SCOPES],
      "approval",
      credentials.lifetimeSeconds,
    );
    return {
      token: pairing.token,
      device: name,
      deviceId: pairing.deviceId,
      scopes: pairing.scopes,
    };
  }

  /** Replaces the signing key (after rotation): every token signed before stops verifying. */
  setKey(key: Uint8Array): void {
    this.#o = { ...this.#o, key };
  }

  /**
   * Exchanges a one-time code for a device token (`osc`: an OSC sender, bound to its address),
   * valid `lifetimeSeconds` (default: the setting `tokenLifetimeDays`).
   * @throws {CueportError} AUTHENTICATION_FAILED or RATE_LIMITED
   */
  async pair(
    otp: string,
    address: string,
    deviceName: string,
    scopes: Scope[] = [...ALL_SCOPES],
    origin: "pairing" | "osc" = "pairing",
    lifetimeSeconds?: number,
  ): Promise<Pairing> {
    // A code in an OSC datagram comes from an address anyone can forge: its limits are its own.
    this.#o.codes.consume(otp, address, origin === "osc" ? "osc" : "tcp");
    return await this.#register(address, deviceName, scopes, origin, lifetimeSeconds);
  }

  async #register(
    address: string,
    deviceName: string,
    scopes: Scope[],
    origin: "pairing" | "approval" | "osc" = "pairing",
    lifetimeSeconds = this.#o.tokenLifetimeSeconds,
  ): Promise<Pairing> {
    const deviceId = newDeviceId();
    const tokenId = crypto.randomUUID();
    const name = deviceName.trim() || deviceId;
    const { token, expiresAt } = await issueToken(this.#o.key, {
      deviceId,
      deviceName: name,
      scopes,
      tokenId,
    }, {
      lifetimeSeconds,
      now: this.#now(),
    });
    const device: Device = {
      deviceId,
      name,
      scopes,
      tokenId,
      pairedAt: new Date(this.#now()).toISOString(),
      address,
      origin,
      // A device paired with a code may be shared with the rigs of a group (`onpair`).
      ...(origin === "pairing" ? { tokenHash: await tokenHash(token) } : {}),
    };
    if (origin === "approval") {
      await this.#o.devices.addApproved(device, { ...APPROVED_LIMITS, now: this.#now() });
    } else await this.#o.devices.add(device);
    if (origin === "pairing") await this.onpair(device);
    return { token, deviceId, scopes, expiresAt: new Date(expiresAt).toISOString() };
  }
}
