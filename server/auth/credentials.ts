/**
 * What a client presents and what it is granted: the `Authenticator`
 * interface every transport calls, the local-address rule and the scope rule.
 * @module
 */
import { CueportError } from "../core/errors.ts";

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

/** A successful authentication. */
export interface Grant {
  /** A token to reuse, when one was issued. */
  token?: string;
  /** Who it is, for logs. */
  device: string;
  /** The paired device, when it is one (revoking it closes its connections). */
  deviceId?: string;
  /** What it may do. */
  scopes?: readonly string[];
  /** No credential was needed nor checked (a remote client pairing): it gets small budgets. */
  isAnonymous?: boolean;
}

/** Decides whether a client is let in. */
export interface Authenticator {
  /** @throws {CueportError} AUTHENTICATION_FAILED with the reason */
  authenticate(credentials: Credentials): Promise<Grant>;
}

/** Whether an address is this machine (127.0.0.1 or ::1, also as IPv4-mapped IPv6). */
export function isLocalAddress(address: string): boolean {
  return address === "127.0.0.1" || address === "::1" || address === "::ffff:127.0.0.1";
}

/**
 * Scope rule: reads need `view`; actions (and anything that changes the show)
 * need `control`; edits need `edit`.
 * @throws {CueportError} INSUFFICIENT_SCOPE naming the missing scope
 */
export function requireScope(grant: Grant, scope: "view" | "control" | "edit"): void {
  if (grant.scopes && !grant.scopes.includes(scope)) {
    throw new CueportError(
      "INSUFFICIENT_SCOPE",
      `This device was paired without the "${scope}" scope: pair it again with "${scope}" to do this`,
    );
  }
}
