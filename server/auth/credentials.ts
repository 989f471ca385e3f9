/**
 * What a client presents and what it is granted: the `Authenticator`
 * interface every transport calls, the local-address rule and the scope rule.
 * @module
 */
import type { Grant, TokenCheck } from "../core/mod.ts";
import { CueportError } from "../core/errors.ts";

export { type Grant, requireScope } from "../core/mod.ts";

/** Credentials a client presents. */
export interface Credentials {
  /** The peer's IP address, from the socket. */
  address: string;
  token?: string | undefined;
  otp?: string | undefined;
  deviceName?: string | undefined;
  /**
   * The client can wait for an approval (a WebSocket auth): a local client with
   * empty credentials then goes through the player's approval and gets a token.
   */
  isInteractive?: boolean;
  /** Lifetime of a token issued now, seconds (the 5.0.0 interface: 30 days); default: the setting. */
  lifetimeSeconds?: number | undefined;
  /** The wire they came on (default `http`): a refusal says how to send them there. */
  wire?: "http" | "websocket";
}

/** Decides whether a client is let in (the core's `TokenCheck`, and the rest of the credentials). */
export interface Authenticator extends TokenCheck {
  /** @throws {CueportError} AUTHENTICATION_FAILED with the reason */
  authenticate(credentials: Credentials): Promise<Grant>;
}

/** Whether an address is this machine (127.0.0.1 or ::1, also as IPv4-mapped IPv6). */
export function isLocalAddress(address: string): boolean {
  return address === "127.0.0.1" || address === "::1" || address === "::ffff:127.0.0.1";
}

/**
 * The operator denied a local client's connection (`cueport deny`): AUTHENTICATION_FAILED, and a
 * WebSocket is closed at once (it would only wait for its auth deadline).
 */
export class ApprovalDenied extends CueportError {
  constructor() {
    super("AUTHENTICATION_FAILED", "The connection was not approved on the show machine");
  }
}
