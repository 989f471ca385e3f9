/**
 * Who calls an operation, as the core knows them: the grant a caller runs
 * under, the scope rule, and the one thing the core needs of authentication
 * (`TokenCheck`, which `server/auth`'s authenticator fits). The core owns
 * these, so it never imports auth.
 * @module
 */
import { CueportError } from "./errors.ts";

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

/** Checks a caller's token; what the policy asks of authentication. */
export interface TokenCheck {
  /** @throws {CueportError} AUTHENTICATION_FAILED with the reason */
  authenticate(credentials: { address: string; token?: string | undefined }): Promise<Grant>;
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
