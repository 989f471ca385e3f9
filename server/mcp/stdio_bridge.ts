/**
 * `cueport mcp`: an MCP server on stdio for assistants that can only start a
 * command. It forwards every message, both ways, to the running service's
 * `/mcp` (the SDK's stdio server transport on one side, its Streamable HTTP
 * client transport on the other), so the tools, their checks and the session
 * are the service's own; it adds nothing but the credential.
 * @module
 */
import process from "node:process";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Where the bridge forwards to. */
export interface BridgeOptions {
  /** The service's `/mcp` URL. */
  url: URL;
  /** Sent as `Authorization: Bearer`; the operator credential when readable. */
  token: string | null;
  /** Where problems are told (stderr: stdout carries the protocol). */
  log: (message: string) => void;
  /** The data dir the service was looked for in, to name when none answers. */
  dataDir?: string | null;
}

/** Whether a send failed because nothing listens on the port (no service running there). */
function isUnanswered(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof Deno.errors.ConnectionRefused) return true;
    if (/connection refused|ECONNREFUSED|tcp connect error/i.test(e.message)) return true;
  }
  return false;
}

/** An error with its causes: the fetch's own "fetch failed" says nothing alone. */
function describe(error: Error): string {
  const causes: string[] = [];
  for (let e: unknown = error.cause; e instanceof Error; e = e.cause) causes.push(e.message);
  return [error.message, ...causes].join(": ");
}

/**
 * The JSON-RPC error the service answered a message with (the SDK throws it as "Error POSTing to
 * endpoint: <body>"), or null: that is the service's answer, not an outage.
 */
function serviceRefusal(error: Error): { code: number; message: string } | null {
  const body = /Error POSTing to endpoint: (\{.*\})\s*$/s.exec(error.message)?.[1];
  if (body === undefined) return null;
  try {
    const refusal = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof refusal?.code !== "number" || typeof refusal.message !== "string") return null;
    return { code: refusal.code, message: refusal.message };
  } catch {
    return null;
  }
}

/** The one line for a service that does not answer: where it was looked for, how to start it. */
export function unansweredLine(url: URL, dataDir: string | null | undefined): string {
  const where = dataDir ? ` (data dir ${dataDir})` : "";
  const start = dataDir ? `cueport --data-dir ${dataDir}` : "cueport";
  return `No Cueport service answers on port ${url.port}${where}: start it with "${start}", ` +
    "or give the --data-dir or --http-port of the one that runs";
}

/**
 * How long the bridge waits, once stdin has ended, with no answer coming for those still owed, ms
 * (answers coming in order keep it waiting: slow is not gone).
 */
const DRAIN_MS = 30_000;

type Message = JSONRPCMessage & { id?: string | number; method?: string; result?: unknown };

/** The requests read and not yet answered: the bridge answers each before it ends. */
class OwedAnswers {
  #ids = new Set<string | number>();
  #drained = Promise.withResolvers<void>();
  /** Called on each answer while `settled` waits (it starts its wait again). */
  #onPaid: (() => void) | null = null;

  /** Request `id` was read. */
  owe(id: string | number): void {
    if (this.#ids.size === 0) this.#drained = Promise.withResolvers<void>();
    this.#ids.add(id);
  }

  /** Request `id` was answered. */
  paid(id: string | number): void {
    if (!this.#ids.delete(id)) return;
    this.#onPaid?.();
    if (this.#ids.size === 0) this.#drained.resolve();
  }

  /** Resolves once nothing is owed, or after `ms` without an answer. */
  async settled(ms: number): Promise<void> {
    if (this.#ids.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => {
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(resolve, ms);
      };
      this.#onPaid = arm;
      arm();
    });
    await Promise.race([this.#drained.promise, late]);
    this.#onPaid = null;
    clearTimeout(timer);
  }
}

/**
 * What is read while `initialize` is out waits for its answer, which brings the session's id and
 * version: a client that writes its first messages at once is served in one session.
 */
class InitializeGate {
  #open = Promise.resolve();
  /** Each `initialize` out, by id: what its answer opens. */
  #out = new Map<string | number | undefined, () => void>();

  /** What `message` waits for before it is sent; an `initialize` closes the gate behind it. */
  pass(message: Message): Promise<void> {
    const before = this.#open;
    if (message.method === "initialize") {
      const opened = Promise.withResolvers<void>();
      this.#open = opened.promise;
      this.#out.set(message.id, opened.resolve);
    }
    return before;
  }

  /** Whether `id` is that of an `initialize` out. */
  isOut(id: string | number | undefined): boolean {
    return id !== undefined && this.#out.has(id);
  }

  /** The `initialize` of `id` was answered, or could not be sent. */
  open(id: string | number | undefined): void {
    this.#out.get(id)?.();
    this.#out.delete(id);
  }
}

/** What the bridge tells of a failed send: to the assistant's log, and as a request's answer. */
class Failures {
  readonly #options: BridgeOptions;
  readonly #unanswered: string;
  /** One line per outage, not one per message: the assistant may send many while it lasts. */
  #isDown = false;

  constructor(options: BridgeOptions) {
    this.#options = options;
    this.#unanswered = unansweredLine(options.url, options.dataDir);
  }

  /** Logs `error`, unless it is the service's own refusal (an answer, not an outage). */
  report(error: Error): void {
    if (serviceRefusal(error) !== null) return;
    if (!isUnanswered(error)) return this.#options.log(`cueport mcp: ${describe(error)}`);
    if (!this.#isDown) this.#options.log(`cueport mcp: ${this.#unanswered}`);
    this.#isDown = true;
  }

  /** The service answered: the next outage is told again. */
  answered(): void {
    this.#isDown = false;
  }

  /** The error a request whose send failed with `error` is answered with. */
  answerTo(error: Error): { code: number; message: string } {
    const refusal = serviceRefusal(error);
    // The service asks for an HTTP header; on stdio that means no initialize came first.
    if (refusal && /Mcp-Session-Id header is required/.test(refusal.message)) {
      return { code: refusal.code, message: "No session yet: send initialize first" };
    }
    const text = isUnanswered(error)
      ? this.#unanswered
      : `Cannot reach Cueport at ${this.#options.url}: ${describe(error)}`;
    return refusal ?? { code: -32000, message: text };
  }
}

/** Runs the bridge until stdin ends; resolves then, after ending the remote session. */
export async function runStdioBridge(options: BridgeOptions): Promise<void> {
  const headers: Record<string, string> = options.token
    ? { authorization: `Bearer ${options.token}` }
    : {};
  const remote = new StreamableHTTPClientTransport(options.url, { requestInit: { headers } });
  const local = new StdioServerTransport();
  const owed = new OwedAnswers();
  const gate = new InitializeGate();
  const failures = new Failures(options);
  let ended: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));

  local.onmessage = (raw) => {
    const message = raw as Message;
    const id = message.method === undefined ? undefined : message.id;
    if (id !== undefined) owed.owe(id);
    gate.pass(message).then(() => remote.send(message)).catch((error: Error) => {
      if (message.method === "initialize") gate.open(message.id);
      failures.report(error);
      if (id === undefined) return;
      // A request must be answered, or the assistant waits forever.
      local.send({ jsonrpc: "2.0", id, error: failures.answerTo(error) })
        .catch(() => {}).finally(() => owed.paid(id));
    });
  };
  remote.onmessage = (raw) => {
    failures.answered();
    const message = raw as Message;
    if (message.method === undefined && gate.isOut(message.id)) {
      // Later requests carry the version the service agreed to (MCP-Protocol-Version).
      const result = message.result as { protocolVersion?: string } | undefined;
      if (result?.protocolVersion) remote.setProtocolVersion(result.protocolVersion);
      gate.open(message.id);
    }
    const id = message.method === undefined ? message.id : undefined;
    local.send(message).catch(() => {}).finally(() => id !== undefined && owed.paid(id));
  };
  remote.onerror = (error) => failures.report(error);
  local.onerror = (error) => options.log(`cueport mcp: ${error.message}`);
  process.stdin.on("end", () => ended());
  process.stdin.on("close", () => ended());

  await remote.start();
  await local.start();
  await done;
  // stdin ended: what was asked is still answered (`printf ... | cueport mcp`), while answers
  // come (a service that stops answering holds the bridge DRAIN_MS at most).
  await owed.settled(DRAIN_MS);
  await remote.terminateSession().catch(() => {});
  await remote.close().catch(() => {});
  await local.close().catch(() => {});
}
