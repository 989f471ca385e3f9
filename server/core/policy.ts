/**
 * The one path from a transport to an operation: `Policy.invoke` authorizes
 * the caller (the plan's API access, local-only operations, the localhost
 * exemption, the scope a device token needs), checks the input, runs the
 * operation with its retry key (idempotency) and gives the answer or a
 * `CueportError`. A transport brings who is calling, the operation from the
 * catalog and the raw input; it decides nothing about access itself.
 * @module
 */
import type { Core } from "./core.ts";
import { type Grant, requireScope, type TokenCheck } from "./caller.ts";
import { CueportError, withWireField } from "./errors.ts";
import { retryKeyOf } from "./idempotency.ts";
import { type AnyOperation, checkInput, type OperationContext } from "./operations/mod.ts";

/** Who is calling, as a transport knows it. */
export interface Caller {
  /** The peer's address, from the socket. */
  address: string;
  isLocal: boolean;
  /** The grant of a session that authenticated once (a WebSocket connection). */
  grant?: Grant | undefined;
  /** The token of a request that carries its own (an HTTP `Authorization` header). */
  token?: string | undefined;
}

/** What the policy needs. */
export interface PolicyOptions {
  core: Core;
  authenticator: TokenCheck;
  /** Clients on this machine need no token (setting localhostAuthExempt). */
  isLocalhostExempt: boolean;
}

/** What a transport gives `invoke` besides the caller and the input. */
export interface InvokeOptions {
  /** The operation as the transport names it, for a refusal (`POST /api/v1/pair/code`). */
  where?: string | undefined;
  /** The transport's path to the input, for a bad field (`params.` on the WebSocket). */
  prefix?: string;
  /** The caller's retry key and the field it came in (`Idempotency-Key`, `idempotencyKey`). */
  retry?: { key: unknown; field: string } | undefined;
  /** The services the transport gives its operations (auth, media, facts, signal...). */
  context?: InvokeContext;
  /**
   * The transport's own unit over the operation, run in its place under the
   * operation's authorization: an MCP tool (its own input, checked by `parse`
   * after the scope, and a `run` that calls operations through `invoke`
   * itself), MCP's listing of resources. The operation decides who may; this
   * decides what runs.
   */
  as?: TransportUnit;
}

/** A transport's own unit run under an operation's authorization (`InvokeOptions.as`). */
export interface TransportUnit {
  /** Checks the raw input as the transport declares it. */
  parse(raw: unknown): unknown;
  run(input: unknown): unknown;
}

/** What a transport adds to an operation's context (`invoke` adds the core and the caller). */
export type InvokeContext = Omit<
  OperationContext,
  "core" | "address" | "isLocal" | "retry" | "deviceId"
>;

/** An operation authorized and its input checked, to run when the transport decides (`Policy.prepare`). */
export interface Prepared {
  /** The input as checked (defaults filled in). */
  input: unknown;
  run(): unknown;
}

/** The grant of a local client under the localhost exemption. */
const LOCAL: Grant = Object.freeze({ device: "local" });

/** Decides who may run which operation, whatever the wire. */
export class Policy {
  #o: PolicyOptions;

  /** Builds the policy. */
  constructor(options: PolicyOptions) {
    this.#o = options;
  }

  /**
   * Whether `caller` may run `operation`, in this order: API access in the
   * plan, local-only, then the scope: a session's grant is checked as it is;
   * a local caller is exempt (unless localhostAuthExempt is off); anyone else
   * is authenticated with its token. Synchronous unless a token is verified.
   * `where` names the operation in a refusal as the transport knows it (`POST /api/v1/pair/code`).
   * @returns the grant it runs under (`isAnonymous` when no credential was needed nor checked)
   * @throws {CueportError} API_ACCESS_DENIED, LOCAL_ONLY, AUTHENTICATION_FAILED, INSUFFICIENT_SCOPE
   */
  authorize(caller: Caller, operation: AnyOperation, where?: string): Grant | Promise<Grant> {
    if (operation.needsApiAccess) this.#o.core.requireApiAccess();
    if (operation.isLocalOnly && !caller.isLocal) {
      throw new CueportError(
        "LOCAL_ONLY",
        `${where ?? `The operation "${operation.name}"`} is only for clients on this machine`,
      );
    }
    const scope = operation.scope;
    if (caller.grant) {
      if (scope !== null) requireScope(caller.grant, scope);
      return caller.grant;
    }
    if (caller.isLocal && scope === null) return LOCAL;
    const exempt = this.exempted(caller);
    if (exempt) return exempt;
    if (scope === null) return { device: caller.address, isAnonymous: true };
    return this.#o.authenticator.authenticate({ address: caller.address, token: caller.token })
      .then((grant) => {
        requireScope(grant, scope);
        return grant;
      });
  }

  /**
   * Who the caller is, before any operation is known (a session that opens
   * once and then runs many operations: MCP): the plan first (no session
   * opens without API access), then the localhost exemption, else its token.
   * Scopes are checked later, per operation, by `authorize` with this grant.
   * @throws {CueportError} API_ACCESS_DENIED, AUTHENTICATION_FAILED
   */
  identify(caller: Omit<Caller, "grant">): Grant | Promise<Grant> {
    this.#o.core.requireApiAccess();
    return this.exempted(caller) ??
      this.#o.authenticator.authenticate({ address: caller.address, token: caller.token });
  }

  /**
   * The grant of a caller on this machine under the localhost exemption
   * (setting localhostAuthExempt), or null: the one place that decides it.
   * A transport that knows its callers by address asks it before its own
   * rule (OSC: then paired senders and oscAllow).
   */
  exempted(caller: Pick<Caller, "isLocal">): Grant | null {
    return caller.isLocal && this.#o.isLocalhostExempt ? LOCAL : null;
  }

  /**
   * Whether a session with `grant` may run `operation` as far as the grant
   * goes (scope, local-only); what a transport lists to such a session.
   * The plan is checked when it runs.
   */
  permits(grant: Grant, operation: AnyOperation, isLocal: boolean): boolean {
    if (operation.isLocalOnly && !isLocal) return false;
    const scope = operation.scope;
    return scope === null || !grant.scopes || grant.scopes.includes(scope);
  }

  /**
   * Runs `operation` for `caller` with the raw `input`: authorized (as
   * `authorize`), the input checked (naming the bad field after
   * `options.prefix`), with the caller's retry key where the operation is
   * idempotent. Synchronous unless a token is verified or the operation waits.
   * @throws {CueportError} the refusals of `authorize`, INVALID_MESSAGE, and the operation's own
   */
  invoke(
    operation: AnyOperation,
    caller: Caller,
    input: unknown,
    options: InvokeOptions = {},
  ): unknown {
    const prepared = this.prepare(operation, caller, input, options);
    return prepared instanceof Promise ? prepared.then((p) => p.run()) : prepared.run();
  }

  /**
   * `invoke` in two steps, for a transport that decides when the operation
   * runs (OSC joins a value being set to the call of the same thing that
   * runs, `server/osc/coalesce.ts`): authorizes the caller and checks the
   * input now, and gives the checked input and the run. Synchronous when the
   * caller brings its grant.
   * @throws {CueportError} the refusals of `authorize`, INVALID_MESSAGE
   */
  prepare(
    operation: AnyOperation,
    caller: Caller,
    input: unknown,
    options: InvokeOptions = {},
  ): Prepared | Promise<Prepared> {
    const grant = this.authorize(caller, operation, options.where);
    return grant instanceof Promise
      ? grant.then((g) => this.#bind(g, operation, caller, input, options))
      : this.#bind(grant, operation, caller, input, options);
  }

  /**
   * The second half of `invoke`, for a transport that needed the grant in
   * between (HTTP reads a body only once it knows the caller, with the budget
   * the grant allows): runs `operation` under `grant`, which `authorize` gave
   * for this caller, the input checked, with the caller's retry key.
   * @throws {CueportError} INVALID_MESSAGE, and the operation's own
   */
  runAs(
    grant: Grant,
    operation: AnyOperation,
    caller: Caller,
    input: unknown,
    options: InvokeOptions = {},
  ): unknown {
    return this.#bind(grant, operation, caller, input, options).run();
  }

  #bind(
    grant: Grant,
    operation: AnyOperation,
    caller: Caller,
    input: unknown,
    options: InvokeOptions,
  ): Prepared {
    const unit = options.as;
    if (unit) {
      const checked = unit.parse(input);
      return { input: checked, run: () => unit.run(checked) };
    }
    const ctx: OperationContext = {
      ...options.context,
      core: this.#o.core,
      address: caller.address,
      isLocal: caller.isLocal,
    };
    if (grant.deviceId !== undefined) ctx.deviceId = grant.deviceId;
    const retry = options.retry;
    if (retry && operation.isIdempotent) ctx.retry = retryKeyOf(grant, retry.key, retry.field);
    const checked = checkInput(operation, input, options.prefix);
    return new Bound(operation, ctx, checked, options.prefix ?? "");
  }
}

/**
 * An operation bound to its context and checked input: one object per call (OSC makes many). A
 * refusal of the run naming one of the input's fields names it after the transport's `prefix`
 * (`params.projectId` on the WebSocket), as the input's own checks do.
 */
class Bound implements Prepared {
  #operation: AnyOperation;
  #ctx: OperationContext;
  #prefix: string;
  readonly input: unknown;

  constructor(operation: AnyOperation, ctx: OperationContext, input: unknown, prefix = "") {
    this.#operation = operation;
    this.#ctx = ctx;
    this.input = input;
    this.#prefix = prefix;
  }

  run(): unknown {
    if (this.#prefix === "") return this.#operation.run(this.#ctx, this.input);
    try {
      const out = this.#operation.run(this.#ctx, this.input);
      return out instanceof Promise
        ? out.catch((error) => Promise.reject(this.#named(error)))
        : out;
    } catch (error) {
      throw this.#named(error);
    }
  }

  #named(error: unknown): unknown {
    const input = this.input;
    if (typeof input !== "object" || input === null) return error;
    return withWireField(
      error,
      (field) => Object.hasOwn(input, field) ? { field: this.#prefix + field } : undefined,
    );
  }
}
