/**
 * One MCP session: the SDK's `Server` over one Streamable HTTP transport,
 * with the handlers of tools and resources. Every call is authorized per
 * operation with the grant of the HTTP request that carries it, so a token's
 * scopes decide what a session lists and runs.
 * @module
 */
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type AnyOperation,
  type Caller,
  type Core,
  type MediaSource,
  type MidiService,
  operationNamed,
  unexpectedOf,
} from "../core/mod.ts";
import type { Policy } from "../core/mod.ts";
import type { Grant } from "../auth/mod.ts";
import type { RateMeter } from "../auth/rate_limit.ts";
import { resultOf } from "./answers.ts";
import { errorResultOf, mcpError, sessionError } from "./errors.ts";
import type { BoundedEventStream } from "./event_stream.ts";
import type { ResourceFeed } from "./resource_feed.ts";
import { listResources, RESOURCE_TEMPLATES, resourceRead } from "./resources.ts";
import { guardRequests } from "./request_check.ts";
import { checkToolInput, type ToolAnswer, type ToolContext } from "./tool.ts";
import type { ToolTable } from "./tools.ts";

/** The caller of one HTTP request, handed to the handlers as the SDK's `authInfo.extra`. */
export interface RequestCaller {
  grant: Grant;
  address: string;
  isLocal: boolean;
  /** `tools/call` messages of this request so far (the first is the request's own cost). */
  calls: number;
}

/** What every session shares. */
export interface SessionDeps {
  core: Core;
  policy: Policy;
  tools: ToolTable;
  media?: MediaSource | undefined;
  /** The MIDI transport, for the MIDI tool. */
  midi?: MidiService | undefined;
  /** The HTTP budget: a `tools/call` beyond the first of one request takes its own. */
  rateLimit: RateMeter;
  version: string;
  /** What each batch of updates owes the sessions' subscriptions. */
  feed: ResourceFeed;
  /** Where faults (anything but a `CueportError`) are logged with their stack. */
  log?: ((message: string) => void) | undefined;
}

/** What the model reads when it connects. */
const INSTRUCTIONS =
  "This server controls a show playback application: Projects of Songs and Clips, played on a clock, with Controls A-Z, Effects, Visualizers and presets. Read with the app_get_* tools (start with app_get_projects or app_get_active_project), run the show with app_playback, app_system, app_control and app_open_editor, choose the active Project with app_project_select, and change Projects with the *_edit tools (each change is one undo step: app_project_edit project.undo reverts it). Positions are zero-based. Errors carry a code and a hint of what to call next.";

const projectsOperation = operationNamed("projects");

function callerOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): RequestCaller {
  const caller = extra.authInfo?.extra?.caller as RequestCaller | undefined;
  if (!caller) throw sessionError(-32600, "No caller: requests come through /mcp");
  return caller;
}

/** The caller of a request as the policy knows it: its address and the session's grant. */
function whoIs(caller: RequestCaller): Caller {
  return { address: caller.address, isLocal: caller.isLocal, grant: caller.grant };
}

/** One session: its server, transport and resource subscriptions. */
export class McpSession {
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** Who opened it: only the same device may use it. */
  readonly owner: string;
  readonly subscriptions = new Set<string>();
  #deps: SessionDeps;
  #unsubscribe: (() => void) | null = null;
  /** `GET` streams open, the newest last (the SDK allows one; a new one may open before the old one ends). */
  #streams: BoundedEventStream[] = [];
  #isClosed = false;

  /** Builds a session for `owner`; `transport` is its Streamable HTTP transport. */
  constructor(
    deps: SessionDeps,
    owner: string,
    transport: WebStandardStreamableHTTPServerTransport,
  ) {
    this.#deps = deps;
    this.owner = owner;
    this.transport = transport;
    this.server = new Server(
      { name: "app", title: "Show playback control", version: deps.version },
      {
        capabilities: {
          tools: { listChanged: false },
          resources: { subscribe: true, listChanged: true },
        },
        instructions: INSTRUCTIONS,
      },
    );
    this.server.onclose = () => this.#dispose();
    this.#handleTools();
    this.#handleResources();
  }

  /** Connects the server to its transport, with requests of the wrong shape refused first. */
  async connect(): Promise<void> {
    await this.server.connect(this.transport);
    guardRequests(this.transport);
  }

  /**
   * Starts following state updates once the session is initialized. Its
   * notifications are written straight to its open `GET` stream, a chunk per
   * batch; while none is open, a batch costs it nothing.
   */
  start(): void {
    if (this.#unsubscribe || this.#isClosed) return;
    const { feed } = this.#deps;
    feed.prime();
    this.#unsubscribe = this.#deps.core.bus.subscribe((batch) => {
      const stream = this.#streams.at(-1);
      if (!stream?.isOpen) return;
      const events = feed.events(batch, this.subscriptions);
      if (events) stream.push(events);
    });
  }

  /** A `GET` stream of this session opened: its notifications go there. */
  attachStream(stream: BoundedEventStream): void {
    this.#streams.push(stream);
  }

  /** A `GET` stream of this session is over. */
  detachStream(stream: BoundedEventStream): void {
    const at = this.#streams.indexOf(stream);
    if (at >= 0) this.#streams.splice(at, 1);
  }

  /** Ends the session: its streams close, it stops following updates. */
  close(): void {
    this.transport.close().catch(() => {});
    this.#dispose();
  }

  #dispose(): void {
    this.#isClosed = true;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
  }

  /** Logs a failure of `what` that is a fault, not an answer (`unexpectedOf`). */
  #logFault(what: string, error: unknown): void {
    const fault = unexpectedOf(error);
    if (fault) this.#deps.log?.(`MCP ${what}: ${fault}`);
  }

  /** Runs operations for `caller`: authorized by the one policy, input checked, run. */
  #context(caller: RequestCaller, where: string, signal?: AbortSignal): ToolContext {
    const { core, media, midi, policy } = this.#deps;
    const who = whoIs(caller);
    return {
      run: async (operation: AnyOperation, raw: unknown) =>
        await policy.invoke(operation, who, raw, { where, context: { media, midi, signal } }),
      activeProjectId: () => core.model.activeProjectId,
    };
  }

  #handleTools(): void {
    const { tools, policy, rateLimit } = this.#deps;
    this.server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => {
      const caller = callerOf(extra);
      return {
        tools: tools.tools
          .filter((t) => policy.permits(caller.grant, t.operation, caller.isLocal))
          .map((t) => tools.listing(t)),
      };
    });
    this.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const caller = callerOf(extra);
      const name = request.params.name;
      const tool = tools.byName.get(name);
      if (!tool) {
        throw sessionError(-32602, `Unknown tool "${name}": tools/list names the tools`);
      }
      try {
        // A local client is not metered (server/auth/rate_limit.ts).
        if (++caller.calls > 1) rateLimit.take(caller.address);
        const where = `The tool ${name}`;
        // The call's signal: a tool that waits (MIDI learn) ends when the client cancels it.
        const ctx = this.#context(caller, where, extra.signal);
        // The tool runs under its operation's authorization, through the one path: the scope
        // first (a refused tool says so, whatever its input), then its input, then its call,
        // whose operations go through `Policy.invoke` each (`#context`).
        const answer = await policy.invoke(
          tool.operation,
          whoIs(caller),
          request.params.arguments,
          {
            where,
            as: {
              parse: (raw) => checkToolInput(tool, raw),
              run: (input) => tool.call(input, ctx),
            },
          },
        );
        return resultOf(answer as ToolAnswer);
      } catch (error) {
        this.#logFault(name, error);
        return errorResultOf(error, name);
      }
    });
  }

  #handleResources(): void {
    const { core, policy } = this.#deps;
    /** A listing (or a read), run under the `projects` operation's authorization (what it lists). */
    const listing = async <T>(caller: RequestCaller, list: () => T): Promise<T> => {
      try {
        return await policy.invoke(projectsOperation, whoIs(caller), undefined, {
          where: "Resources",
          as: { parse: () => undefined, run: list },
        }) as T;
      } catch (error) {
        this.#logFault("resources", error);
        throw mcpError(error);
      }
    };
    this.server.setRequestHandler(
      ListResourcesRequestSchema,
      (_request, extra) => listing(callerOf(extra), () => ({ resources: listResources(core) })),
    );
    this.server.setRequestHandler(
      ListResourceTemplatesRequestSchema,
      (_request, extra) =>
        listing(callerOf(extra), () => ({ resourceTemplates: RESOURCE_TEMPLATES })),
    );
    /**
     * A resource read, under the `projects` operation's authorization first (as
     * a listing: a session refused it is refused whatever the URI, never told
     * the templates), then its URI, then the read's own operation.
     */
    const read = (caller: RequestCaller, uri: string): Promise<unknown> =>
      listing(caller, () => {
        const { operation, input } = resourceRead(uri);
        return this.#context(caller, "Resources").run(operation, input);
      });
    this.server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const uri = request.params.uri;
      const value = await read(callerOf(extra), uri);
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(value) }] };
    });
    this.server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      const uri = request.params.uri;
      await read(callerOf(extra), uri); // it exists, it may be read
      if (this.subscriptions.size >= 256) {
        throw sessionError(-32600, "Too many subscriptions: at most 256 per session");
      }
      this.subscriptions.add(uri);
      return {};
    });
    this.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      this.subscriptions.delete(request.params.uri);
      return {};
    });
  }
}
