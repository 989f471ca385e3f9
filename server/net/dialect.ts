/**
 * What an interface version changes of the HTTP and WebSocket engines: a
 * dialect. The engines (`server/routes`, `server/socket`) keep everything
 * else (budgets, the policy, the rate limit, body limits, ordering, lag
 * handling); the 6.0 dialect is their default, the 5.0.0 one lives in
 * `server/legacy` and `server/service.ts` hands it to a second instance of
 * each engine on the 5.0.0 ports. Declared here so that neither side
 * imports the other.
 * @module
 */
import type { StateUpdate } from "../../protocol/state.ts";
import type { Core, CueportError } from "../core/mod.ts";
import type { HttpErrorForm, HttpErrorOptions } from "./http_error.ts";
import type { RouteSpec } from "./route.ts";

export type { HttpErrorForm } from "./http_error.ts";

/** What an HTTP interface version decides. */
export interface HttpDialect {
  /** Its name, for the log (`5.0.0`). */
  name: string;
  /** The routes it serves (instead of the 6.0 table). */
  routes: RouteSpec[];
  /** An answer as JSON text. */
  encode(answer: unknown): string;
  /**
   * An error in its HTTP form: its one HTTP error mapping
   * (`server/net/http_error.ts`'s, restated). A function, not a method: the
   * engine hands it on detached (`errorAnswer(error, {}, dialect.error)`), so
   * it must not use `this`.
   */
  error: (error: unknown, options?: HttpErrorOptions) => HttpErrorForm;
  /** The refusal of a request no route takes. */
  notFound(method: string, path: string): CueportError;
  /** Headers every answer carries (the deprecation headers of 5.0.0). */
  headers(request: Request): Record<string, string>;
  /** Lifetime of a token issued through it, seconds; default: the setting. */
  tokenLifetimeSeconds?: number;
  /** Told of each remote request, with its address (who still uses it). */
  seen?(address: string): void;
}

/** A message id as received (a 6.0 `id`, a 5.0.0 `correlationId`). */
export type DialectMessageId = string | number | undefined;

/** An inbound message, decoded: a 6.0-shaped message for the engine, or a refusal. */
export type DecodedMessage =
  | { id: DialectMessageId; message: Record<string, unknown> }
  | { id: DialectMessageId; error: CueportError };

/** What a WebSocket interface version decides. */
export interface WsDialect {
  /** Its name, for the log. */
  name: string;
  /** The paths a client connects to (`/v1`; 5.0.0: `/`). */
  paths: readonly string[];
  /** Where to connect, for the refusal of another path (`connect to /v1`). */
  pathHint: string;
  /**
   * The greeting sent as the socket opens, or null (5.0.0 sends its
   * `connected` event after auth, as the answer to it).
   */
  greeting(clientId: string): string | null;
  /** A parsed JSON message as the engine's (6.0) message, or the refusal. */
  decode(raw: Record<string, unknown>): DecodedMessage;
  /** The answer to a message of `type` that succeeded. */
  answer(id: DialectMessageId, type: string, data: unknown, clientId: string): string;
  /** The answer to a message of `type` (when known) that failed. */
  error(id: DialectMessageId, error: unknown, type?: string): string;
  /**
   * The updates of a batch as this dialect sends them (some dropped, some
   * rewritten), serialized; null when none is left.
   */
  updatesJson(updates: readonly StateUpdate[]): string | null;
  /** A state-update event: `prefix(seq)`, the updates' JSON, then `suffix`. */
  eventPrefix(seq: number): string;
  eventSuffix: string;
  /**
   * A decoded action message as the core's (6.0) request: 5.0.0 translates
   * its own body form here, its seeks in seconds by the lengths `core` knows.
   */
  actionRequest?(message: Record<string, unknown>, core: Core): Record<string, unknown>;
  /** Lifetime of a token issued through it, seconds; default: the setting. */
  tokenLifetimeSeconds?: number;
  /** Told of each client that authenticated, with its address. */
  seen?(address: string): void;
}
