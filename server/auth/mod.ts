/**
 * Who is let in. Transports call an `Authenticator`; the service's is the
 * `TokenAuthenticator` of paired devices (`token_authenticator.ts`).
 * The files of this folder import each other directly, never this barrel.
 * @module
 */
export * from "./credentials.ts";
