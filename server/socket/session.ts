/**
 * The session of one WebSocket connection (`SocketClient` keeps its budget):
 * who it is (the auth gate, its deadline and its grant), what it asked to
 * hear (its filter), and its messages run through the one path
 * (`Policy.invoke`, `dispatch.ts`).
 * @module
 */
import type { StateUpdate } from "../../protocol/state.ts";
import { ApprovalDenied, type Authenticator, type Grant, isLocalAddress } from "../auth/mod.ts";
import type {
  AnyOperation,
  Caller,
  ConnectInput,
  Core,
  InvokeContext,
  InvokeOptions,
  Policy,
  SessionService,
} from "../core/mod.ts";
import { CueportError } from "../core/mod.ts";
import type { WsDialect } from "../net/dialect.ts";
import { type ClientMessage, type CloseReason, CloseReasons } from "./messages.ts";
import { CONNECT, dispatch, type Runner } from "./dispatch.ts";

/** What a message came to: its data, or what it threw (whatever that is, falsy included). */
export type Outcome = { isFailed: false; data: unknown } | { isFailed: true; error: unknown };

type Filter = { updateTypes?: Set<string>; projectIds?: Set<string>; positions: boolean };

/** What a `ClientSession` is built with. */
export interface ClientSessionOptions {
  address: string;
  core: Core;
  auth: Authenticator;
  /** Decides what this client may run, once it has authenticated. */
  policy: Policy;
  dialect: WsDialect;
  /** A client that has not authenticated this long after connecting is closed. */
  authTimeoutMs: number;
  /** Sends the client a `full` update for `event`; returns its sequence number. */
  sendFull: (event: string) => number;
  /** The deadline passed with no auth being decided: the client is to be closed. */
  onAuthTimeout: () => void;
  /** Whether the connection is closing (an auth that ends then fails). */
  isClosing: () => boolean;
}

/** Who a connected client is, what it hears, and how its messages run. */
export class ClientSession {
  /** The paired device behind this connection, if any. */
  deviceId: string | null = null;
  #isAuthenticated = false;
  /** Who this client is, for the policy; its grant once authenticated. */
  #caller: Caller;
  /** The caller before it authenticated: no grant yet (`connect` needs none). */
  #connecting: Caller;
  /** What the connection's operations get besides the core and the caller. */
  #context: InvokeContext;
  #options: ClientSessionOptions;
  #filter: Filter | null = null;
  #authTimer: ReturnType<typeof setTimeout> | undefined;
  #authsRunning = 0;
  /** The deadline passed while an auth was being decided: close unless it succeeds. */
  #isAuthOverdue = false;
  /** The operator denied an auth of this connection (`ApprovalDenied`). */
  #isDenied = false;

  /** Starts the auth deadline. */
  constructor(options: ClientSessionOptions) {
    this.#options = options;
    const { address } = options;
    const isLocal = isLocalAddress(address);
    this.#caller = { address, isLocal, grant: { device: "", scopes: [] } };
    this.#connecting = { address, isLocal };
    this.#context = { session: this.#service };
    this.#authTimer = setTimeout(() => this.#onAuthDeadline(), options.authTimeoutMs);
  }

  /** Whether the client has authenticated. */
  get isAuthenticated(): boolean {
    return this.#isAuthenticated;
  }

  /** Whether the client chose what it hears (`subscribe`): its updates are its own. */
  get isFiltered(): boolean {
    return this.#filter !== null;
  }

  /**
   * Why the connection closes once its last answer is sent, or null: the operator denied it, or
   * the deadline passed while an auth was decided and none is running or succeeded.
   */
  get closeReason(): CloseReason | null {
    if (this.#isAuthenticated || this.#authsRunning > 0) return null;
    if (this.#isDenied) return CloseReasons.notApproved;
    return this.#isAuthOverdue ? CloseReasons.authTimeout : null;
  }

  /** Stops the auth deadline (the connection closes). */
  stop(): void {
    clearTimeout(this.#authTimer);
  }

  /** The updates this client asked to hear, of those given. */
  select(updates: readonly StateUpdate[]): readonly StateUpdate[] {
    return this.#filter ? updates.filter((u) => this.#accepts(u)) : updates;
  }

  #accepts(u: StateUpdate): boolean {
    const f = this.#filter!;
    if (u.updateType === "full") return true;
    if (!f.positions && u.data.event === "positions") return false;
    if (f.updateTypes && !f.updateTypes.has(u.updateType)) return false;
    if (f.projectIds && u.projectId !== null && !f.projectIds.has(u.projectId)) return false;
    return true;
  }

  #onAuthDeadline(): void {
    this.#authTimer = undefined;
    if (this.#isAuthenticated || this.#options.isClosing()) return;
    // An approval may be waiting for the operator (local clients only): its answer decides.
    if (this.#authsRunning > 0) this.#isAuthOverdue = true;
    else this.#options.onAuthTimeout();
  }

  /**
   * What a message comes to: its data, or what it threw (`isFailed`, since an
   * operation may throw a falsy value: that is a failure too). Never throws.
   */
  async outcome(message: ClientMessage): Promise<Outcome> {
    if (!this.#isAuthenticated && message.type !== "auth") {
      return {
        isFailed: true,
        error: new CueportError(
          "AUTHENTICATION_FAILED",
          'Authenticate first: send {"type": "auth", "payload": {...}}',
        ),
      };
    }
    try {
      return { isFailed: false, data: await dispatch(message, this.#runner) };
    } catch (error) {
      return { isFailed: true, error };
    }
  }

  /** Runs `operation` through the one path (`Policy.invoke`) for this connection. */
  #invoke(operation: AnyOperation, input: unknown, options: InvokeOptions = {}): unknown {
    return this.#options.policy.invoke(operation, this.#caller, input, {
      ...options,
      context: this.#context,
    });
  }

  /** What this connection does for the session operations (`connect`, `subscribe`, `full`). */
  #service: SessionService = {
    connect: (credentials) => this.#connect(credentials),
    subscribe: (p) => {
      this.#filter = {
        positions: p.positions ?? true,
        ...(p.updateTypes ? { updateTypes: new Set(p.updateTypes) } : {}),
        ...(p.projectIds ? { projectIds: new Set(p.projectIds) } : {}),
      };
      return {
        subscribed: {
          updateTypes: p.updateTypes ?? "all",
          projectIds: p.projectIds ?? "all",
          positions: this.#filter.positions,
        },
      };
    },
    sendFull: () => ({ seq: this.#options.sendFull("requested") }),
  };

  /** The `auth` message: authenticates the connection (an approval may keep it waiting). */
  async #connect(credentials: ConnectInput): Promise<{ authenticated: true; token?: string }> {
    const { auth, dialect, address } = this.#options;
    this.#authsRunning++;
    let grant: Grant;
    try {
      grant = await auth.authenticate({
        address,
        ...credentials,
        isInteractive: true,
        wire: "websocket",
        lifetimeSeconds: dialect.tokenLifetimeSeconds,
      });
    } catch (error) {
      if (error instanceof ApprovalDenied) this.#isDenied = true;
      throw error;
    } finally {
      this.#authsRunning--;
    }
    if (this.#options.isClosing()) {
      throw new CueportError("AUTHENTICATION_FAILED", "Connection closed");
    }
    this.#isAuthenticated = true;
    this.#isAuthOverdue = false;
    clearTimeout(this.#authTimer);
    this.#caller.grant = grant;
    this.deviceId = grant.deviceId ?? null;
    if (!this.#caller.isLocal) dialect.seen?.(address);
    return grant.token ? { authenticated: true, token: grant.token } : { authenticated: true };
  }

  /** What this connection's messages run with (`dispatch.ts`). */
  #runner: Runner = {
    connect: (input, options) =>
      this.#options.policy.invoke(CONNECT, this.#connecting, input, {
        ...options,
        context: this.#context,
      }),
    invoke: (operation, input, options) => this.#invoke(operation, input, options),
    dialect: () => this.#options.dialect,
    core: () => this.#options.core,
  };
}
