/**
 * One WebSocket connection: the greeting, the auth gate, actions, queries,
 * filters, pings, its rate limit, and delivery of state updates with its own
 * sequence numbers and lag handling.
 * @module
 */
import type { StateUpdate } from "../../protocol/state.ts";
import { type Authenticator, type Grant, requireScope } from "../auth/mod.ts";
import { type Core, CueportError, type UpdateBatch } from "../core/mod.ts";
import { runQuery } from "./queries.ts";
import { ClientMessage, errorMessage, type MessageId, response, stateUpdate } from "./messages.ts";

/** Per-client limits (settings; see docs/websocket.md). */
export interface SocketLimits {
  maxMessageBytes: number;
  ratePerSecond: number;
  burst: number;
  /** Above this many unsent bytes a client is lagging: skipped, then resynced. */
  maxBufferedBytes: number;
  /** A client lagging this long is closed. */
  lagCloseMs: number;
}

/** The batch being delivered, with its payload serialized at most once. */
export interface SharedBatch {
  batch: UpdateBatch;
  payloadJson(): string;
}

/** Message types a client may send, checked once per message without allocating. */
const TYPES: ReadonlySet<string> = new Set([
  "auth",
  "action",
  "subscribe",
  "full",
  "query",
  "ping",
]);
const TYPE_LIST = [...TYPES].join(", ");

type Filter = { updateTypes?: Set<string>; projectIds?: Set<string>; positions: boolean };

/** A connected client. */
export class SocketClient {
  readonly id: string;
  readonly address: string;
  #ws: WebSocket;
  #core: Core;
  #auth: Authenticator;
  #limits: SocketLimits;
  #isAuthenticated = false;
  /** The paired device behind this connection, if any. */
  deviceId: string | null = null;
  #grant: Grant = { device: "" };
  #seq = 0;
  #filter: Filter | null = null;
  #tokens: number;
  #refilledAt = performance.now();
  #lagSince: number | null = null;
  /** Answers go out in message order; this is the last one queued. */
  #tail: Promise<void> = Promise.resolve();

  /** Wraps an upgraded socket; sends the greeting once it opens. */
  constructor(
    ws: WebSocket,
    options: {
      id: string;
      address: string;
      core: Core;
      auth: Authenticator;
      limits: SocketLimits;
      version: string;
    },
  ) {
    this.#ws = ws;
    this.id = options.id;
    this.address = options.address;
    this.#core = options.core;
    this.#auth = options.auth;
    this.#limits = options.limits;
    this.#tokens = options.limits.burst;
    ws.onopen = () =>
      this.#send(JSON.stringify({
        type: "event",
        event: "connected",
        clientId: this.id,
        payload: {
          clientId: this.id,
          apiVersion: "6.0",
          appVersion: options.version,
          authRequired: true,
        },
      }));
    ws.onmessage = (event) => this.#onMessage(event.data);
  }

  /** Whether this client has fallen behind and waits for a resync. */
  get isLagging(): boolean {
    return this.#lagSince !== null;
  }

  /** Closes the connection with a code and reason. */
  close(code: number, reason: string): void {
    try {
      this.#ws.close(code, reason);
    } catch {
      // already closing
    }
  }

  /** Delivers one bus batch: filtered, numbered, skipped while lagging. */
  deliver(shared: SharedBatch): void {
    if (!this.#isAuthenticated || this.#ws.readyState !== WebSocket.OPEN) return;
    const updates = this.#filter
      ? shared.batch.updates.filter((u) => this.#accepts(u))
      : shared.batch.updates;
    if (updates.length === 0) return;
    this.#seq++; // counted even when skipped, so the client sees the gap
    if (this.#lagSince !== null || this.#ws.bufferedAmount > this.#limits.maxBufferedBytes) {
      this.#lagSince ??= performance.now();
      this.checkLag();
      return;
    }
    this.#send(
      stateUpdate(this.#seq, this.#filter ? JSON.stringify(updates) : shared.payloadJson()),
    );
  }

  /** For a lagging client: resync once drained, close once stuck too long. */
  checkLag(): void {
    if (this.#lagSince === null) return;
    if (this.#ws.bufferedAmount <= this.#limits.maxBufferedBytes / 4) {
      this.#lagSince = null;
      this.#sendFull("resync");
    } else if (performance.now() - this.#lagSince > this.#limits.lagCloseMs) {
      this.close(1013, "Too slow: fell behind the state updates");
    }
  }

  #accepts(u: StateUpdate): boolean {
    const f = this.#filter!;
    if (u.updateType === "full") return true;
    if (!f.positions && u.data.event === "positions") return false;
    if (f.updateTypes && !f.updateTypes.has(u.updateType)) return false;
    if (f.projectIds && u.projectId !== null && !f.projectIds.has(u.projectId)) return false;
    return true;
  }

  #sendFull(event: string): void {
    const full: StateUpdate = {
      updateType: "full",
      projectId: null,
      data: { event, state: this.#core.model.snapshot() },
    };
    this.#send(stateUpdate(++this.#seq, JSON.stringify([full])));
  }

  /** Queues a reply behind the answers to earlier messages. */
  #reply(text: string): void {
    this.#tail = this.#tail.then(() => this.#send(text));
  }

  #send(text: string): void {
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.send(text);
  }

  #isRateLimited(): boolean {
    const now = performance.now();
    this.#tokens = Math.min(
      this.#limits.burst,
      this.#tokens + ((now - this.#refilledAt) / 1000) * this.#limits.ratePerSecond,
    );
    this.#refilledAt = now;
    if (this.#tokens < 1) return true;
    this.#tokens--;
    return false;
  }

  #onMessage(data: unknown): void {
    if (typeof data !== "string") {
      return this.#reply(
        errorMessage(
          undefined,
          "INVALID_MESSAGE",
          "Binary frames are not supported: send JSON text",
        ),
      );
    }
    if (data.length > this.#limits.maxMessageBytes) {
      return this.#reply(
        errorMessage(
          undefined,
          "INVALID_MESSAGE",
          `Message too large: over ${this.#limits.maxMessageBytes} bytes`,
        ),
      );
    }
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      return this.#reply(
        errorMessage(
          undefined,
          "INVALID_MESSAGE",
          "Invalid JSON: the message must be a JSON object",
        ),
      );
    }
    const id = typeof raw === "object" && raw !== null && "id" in raw
      ? (raw as { id: MessageId }).id
      : undefined;
    if (this.#isRateLimited()) {
      return this.#reply(
        errorMessage(
          id,
          "RATE_LIMITED",
          `Too many messages: over ${this.#limits.ratePerSecond} per second`,
        ),
      );
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      return this.#reply(errorMessage(id, "INVALID_MESSAGE", "The message must be a JSON object"));
    }
    const type = (raw as { type?: unknown }).type;
    if (typeof type !== "string" || !TYPES.has(type)) {
      return this.#reply(
        errorMessage(
          id,
          "INVALID_MESSAGE",
          `Unknown type ${JSON.stringify(type ?? null)}: use ${TYPE_LIST}`,
        ),
      );
    }
    const parsed = ClientMessage.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.join(".") || "message";
      return this.#reply(
        errorMessage(id, "INVALID_MESSAGE", `Invalid ${field}: ${issue.message}`, { field }),
      );
    }
    const message = parsed.data;
    // Actions of an authenticated client go to the player at once (a fader stream stays
    // pipelined); everything else runs after the messages before it, so a query sees
    // the actions sent ahead of it. Either way, answers go out in message order.
    const early = this.#isAuthenticated && message.type === "action"
      ? this.#outcome(message)
      : null;
    this.#tail = this.#tail.then(async () => {
      const { data, error } = await (early ?? this.#outcome(message));
      this.#send(
        error ? errorMessage(id, error.code, error.message, error.details) : response(id, data),
      );
    });
  }

  /** Runs a message; never throws. */
  async #outcome(message: ClientMessage): Promise<{ data?: unknown; error?: CueportError }> {
    if (!this.#isAuthenticated && message.type !== "auth") {
      return {
        error: new CueportError(
          "AUTHENTICATION_FAILED",
          'Authenticate first: send {"type": "auth", "payload": {...}}',
        ),
      };
    }
    try {
      return { data: await this.#handle(message) };
    } catch (error) {
      return {
        error: error instanceof CueportError
          ? error
          : new CueportError("SERVER_ERROR", "Internal server error"),
      };
    }
  }

  async #handle(message: ClientMessage): Promise<unknown> {
    switch (message.type) {
      case "auth": {
        this.#core.requireApiAccess();
        const grant = await this.#auth.authenticate({
          address: this.address,
          ...message.payload,
          isInteractive: true,
        });
        this.#isAuthenticated = true;
        this.#grant = grant;
        this.deviceId = grant.deviceId ?? null;
        return grant.token ? { authenticated: true, token: grant.token } : { authenticated: true };
      }
      case "action": {
        requireScope(this.#grant, "control");
        const { action, base, velocity, projectID } = message;
        const request: Record<string, unknown> = { name: action.name, params: action.params };
        if (base !== undefined) request.base = base;
        if (velocity !== undefined) request.velocity = velocity;
        if (projectID !== undefined) request.projectID = projectID;
        return await this.#core.runAction(request);
      }
      case "subscribe": {
        const p = message.payload; // already validated (and defaulted) by ClientMessage
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
      }
      case "full":
        requireScope(this.#grant, "view");
        this.#core.requireReady();
        this.#sendFull("requested");
        return { seq: this.#seq };
      case "query":
        requireScope(this.#grant, "view");
        return runQuery(this.#core, message.query, message.params);
      case "ping":
        return { pong: true, time: Date.now() };
    }
  }
}
