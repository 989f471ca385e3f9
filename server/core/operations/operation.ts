/**
 * What an operation is: the one declaration every transport derives from
 * (name, summary, input and output schemas, the policy that guards it, and
 * its handler). A transport keeps only its wire mapping.
 * @module
 */
import type { DataProblem } from "../../../protocol/library.ts";
import type { GroupStatus } from "../../../protocol/rigs.ts";
import type { z } from "zod";
import type { SecurityService } from "./security_service.ts";
import type { SessionService } from "./session_service.ts";
import type { Core } from "../core.ts";
import { CueportError } from "../errors.ts";
import { inputError } from "../input_errors.ts";
import { plainInputCheck } from "./plain_input.ts";
import type { RetryKey } from "../idempotency.ts";
import type { MediaSource } from "./media.ts";
import type { MidiService } from "./midi_service.ts";

/** The scopes a device may be paired with: read, run actions, edit Projects. */
export const SCOPES = ["view", "control", "edit"] as const;

/** The scope a device token needs for an operation; `null`: no token at all. */
export type OperationScope = (typeof SCOPES)[number] | null;

/**
 * What an operation is, for the transports that carry it: `query` (a read
 * of the read model: HTTP GET and WebSocket `query`), `action` (HTTP and
 * WebSocket `action`), `edit`, `security` (pairing, devices, approvals:
 * HTTP only), `service` (health, reload: HTTP only), `media` (images:
 * HTTP, and MCP as image content) and `session` (what steers the connection
 * it runs on: WebSocket `connect`, `subscribe`, `full`, `ping`; OSC's
 * `oscSubscribe`; OSCQuery's `oscQuery`).
 */
export type OperationKind =
  | "query"
  | "action"
  | "edit"
  | "security"
  | "service"
  | "media"
  | "session";

/** The wires an operation travels on; `-5.0.0` the 5.0.0 interface's ports. */
export const TRANSPORTS = [
  "http",
  "websocket",
  "osc",
  "oscquery",
  "mcp",
  "http-5.0.0",
  "websocket-5.0.0",
] as const;

/** One of `TRANSPORTS`. */
export type Transport = (typeof TRANSPORTS)[number];

/** Facts about the running service that some operations report. */
export interface ServiceFacts {
  version: string;
  /** `performance.now()` at start. */
  startedAt: number;
  /** The service's own files found damaged at start (the device registry, the signing key). */
  problems?: () => readonly DataProblem[];
  /** How this rig stands in its rig group (`server/rigs/`); alone, a status without a group. */
  group: () => GroupStatus;
}

/** What a handler gets besides its input: the core, auth, and who asks. */
export interface OperationContext {
  core: Core;
  /** Pairing and devices: given by the transports that carry the security operations. */
  auth?: SecurityService | undefined;
  /** Given by the transports that carry `health`. */
  facts?: ServiceFacts | undefined;
  /** Given by the transports that carry the media operations. */
  media?: MediaSource | undefined;
  /** What the transport says of itself, for the describing operations (`describe.ts`). */
  describe?: (() => unknown) | undefined;
  /** The connection the operation runs on, for the session operations (`session.ts`). */
  session?: SessionService | undefined;
  /** What the OSCQuery port answers the request `oscQuery` runs for (`server/osc/query_server.ts`). */
  oscQuery?: ((deviceId: string | undefined) => unknown) | undefined;
  /** An OSC sender's lease of the state's changes, for `oscSubscribe` (`server/osc/`). */
  oscFeedback?: ((filter: readonly unknown[]) => unknown) | undefined;
  /** The MIDI transport, for the MIDI operations (`midi.ts`). */
  midi?: MidiService | undefined;
  /** The caller's address, from the socket. */
  address: string;
  /** The paired device the caller acts as (its grant's), when it is one. */
  deviceId?: string | undefined;
  /** Whether the caller is on this machine. */
  isLocal: boolean;
  /** Aborts when the caller has left (HTTP: the client closed the request); work for it can stop. */
  signal?: AbortSignal | undefined;
  /** The caller's retry key, on idempotent operations that got one. */
  retry?: RetryKey | undefined;
  /** How a pairing binds its device: `osc`, an OSC sender known by its address (`/connect`). */
  pairing?: "pairing" | "osc" | undefined;
  /** Lifetime of a token issued now, seconds, where the interface fixes it (5.0.0: 30 days). */
  tokenLifetimeSeconds?: number | undefined;
}

/** One operation of the catalog. */
export interface Operation<I = unknown, O = unknown> {
  /** The name every transport knows it by: WebSocket query name, future MCP tool name. */
  name: string;
  summary: string;
  /** The group it is listed under (OpenAPI tag). */
  tag: string;
  kind: OperationKind;
  /** The input, path/query params and body merged into one object. */
  input: z.ZodType<I>;
  /**
   * How a raw input is checked, when the handler's own rules give better
   * messages than the schema (actions and edits coerce and name their
   * params); default: `parseInput(input, raw)`.
   */
  parse?: (raw: unknown) => I;
  /**
   * Older spellings of input fields still accepted for a while, old name to
   * new (`{songId: "songID"}`): the input is read as if the new one was sent
   * (docs/api.md, "One spelling per name").
   */
  renamed?: Readonly<Record<string, string>>;
  /** The answer. */
  output: z.ZodType;
  /** The media types of an answer that is bytes, not JSON (the media operations). */
  produces?: readonly string[];
  scope: OperationScope;
  /** Refused while the player's plan has no API access. */
  needsApiAccess: boolean;
  /** Refused to any caller not on 127.0.0.1/::1, whatever its token. */
  isLocalOnly: boolean;
  /**
   * The transports that carry it, when not those of its kind
   * (`transportsOf`, `carriers.ts`).
   */
  transports?: readonly Transport[];
  /** `6.0`: new in 6.0, so no 5.0.0 port carries it; default: 5.0.0 had it. */
  since?: "6.0";
  /** A retry with the same key gets the first outcome (docs/api.md, "Safe retries"). */
  isIdempotent?: boolean;
  /** Runs it; throws `CueportError` with a stable code. */
  run(ctx: OperationContext, input: I): O | Promise<O>;
}

/** An operation of any input, as catalogs and transports hold them. */
// deno-lint-ignore no-explicit-any
export type AnyOperation = Operation<any, unknown>;

/**
 * A service of the context that the transport was to give.
 * @throws {CueportError} SERVER_ERROR when it did not (a transport carrying an operation it cannot serve)
 */
export function given<T>(service: T | undefined, name: string): T {
  if (service === undefined) {
    throw new CueportError("SERVER_ERROR", `This transport cannot serve it: no ${name}`);
  }
  return service;
}

/** Declares an operation; the defaults are a read for `view` that needs API access. */
export function defineOperation<I, O>(
  spec:
    & Omit<Operation<I, O>, "scope" | "needsApiAccess" | "isLocalOnly">
    & Partial<Pick<Operation<I, O>, "scope" | "needsApiAccess" | "isLocalOnly">>,
): Operation<I, O> {
  return { scope: "view", needsApiAccess: true, isLocalOnly: false, ...spec };
}

/**
 * Checks a raw input against a schema, naming the first bad field (after
 * `prefix`, the transport's path to the input: `params.` on the WebSocket).
 * @throws {CueportError} INVALID_MESSAGE with `details.field`
 */
export function parseInput<T>(schema: z.ZodType<T>, raw: unknown, prefix = ""): T {
  // The plainest inputs (a Project's id, none at all) pass without zod's walk (plain_input.ts).
  if (plainInputCheck(schema)(raw)) return raw as T;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw inputError(schema, parsed.error, { prefix });
}

/**
 * `raw` with the older spellings of `renamed` (old name to new) read as the
 * new ones (`prefix` is the fields' path, `params.` on the WebSocket).
 * @throws {CueportError} INVALID_MESSAGE naming the older spelling, when both are sent
 */
export function renameFields(
  raw: unknown,
  renamed: Readonly<Record<string, string>> | undefined,
  prefix = "",
): unknown {
  if (!renamed || typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  let out: Record<string, unknown> | null = null;
  for (const [old, now] of Object.entries(renamed)) {
    if (!Object.hasOwn(raw, old)) continue;
    if (Object.hasOwn(raw, now)) {
      throw new CueportError(
        "INVALID_MESSAGE",
        `Invalid ${prefix}${old}: ${old} is the older spelling of ${now}, also sent: send ${now} alone`,
        { field: `${prefix}${old}` },
      );
    }
    out ??= { ...raw as Record<string, unknown> };
    out[now] = out[old];
    delete out[old];
  }
  return out ?? raw;
}

/** An operation's input checked as it declares (`parse`, else its schema), older spellings read as the new. */
export function checkInput<I>(operation: Operation<I>, raw: unknown, prefix = ""): I {
  const input = renameFields(raw, operation.renamed, prefix);
  return operation.parse ? operation.parse(input) : parseInput(operation.input, input, prefix);
}
