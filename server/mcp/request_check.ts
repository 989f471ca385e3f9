/**
 * Requests of the wrong shape, answered before the SDK sees them. The SDK
 * checks a request's params against its method's schema inside the handler
 * and, when they do not fit (`tools/call` with `arguments: []`), answers
 * `-32603` Internal error with the validator's issue list as the message.
 * Checked here first, such a request is `-32602` Invalid params with one
 * short line naming the field, and the service's error body as `data`, as
 * every other refusal. The tools' own arguments are checked by the tools
 * (a tool result with `isError`, so the model can correct itself).
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  type JSONRPCMessage,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { CueportError } from "../core/mod.ts";
import { invalidParams } from "./errors.ts";

/** What a schema's check says, as far as this needs it. */
interface Checked {
  success: boolean;
  error?: { issues: ReadonlyArray<Issue> };
}

/** A validation issue (zod's shape). */
interface Issue {
  code: string;
  path: ReadonlyArray<PropertyKey>;
  message: string;
  expected?: string;
}

/** The request schemas of the methods a session answers. */
const SCHEMAS = new Map<string, { safeParse(value: unknown): Checked }>(
  [
    InitializeRequestSchema,
    PingRequestSchema,
    ListToolsRequestSchema,
    CallToolRequestSchema,
    ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema,
    ReadResourceRequestSchema,
    SubscribeRequestSchema,
    UnsubscribeRequestSchema,
  ].map((schema) => [schema.shape.method.value, schema]),
);

/** A JSON value's kind with its article, as a message says it. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return /^[aeiou]/.test(typeof value) ? `an ${typeof value}` : `a ${typeof value}`;
}

/** The kinds a schema may expect, as a message says them. */
const EXPECTED: Record<string, string> = {
  record: "an object",
  object: "an object",
  array: "an array",
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean",
  null: "null",
};

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** One issue as the short line after the field: `expected an object, got an array`. */
function describe(issue: Issue, request: unknown): string {
  const value = valueAt(request, issue.path);
  if (issue.code === "invalid_type" && issue.expected) {
    if (value === undefined) return "is required";
    return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${kindOf(value)}`;
  }
  // Other checks say it in a line of their own; a line, never a dump.
  return issue.message.split("\n")[0]!.slice(0, 160);
}

/**
 * The `-32602` answer to a request whose params do not fit its method, or
 * null when they fit (or the method is not one a session answers: the SDK
 * answers that, -32601).
 */
export function invalidParamsAnswer(message: JSONRPCMessage): JSONRPCMessage | null {
  if (!("method" in message) || !("id" in message)) return null;
  const schema = SCHEMAS.get(message.method);
  const checked = schema?.safeParse(message);
  if (!checked || checked.success) return null;
  const issue = checked.error!.issues[0]!;
  const field = issue.path.map(String).join(".") || "params";
  const error = new CueportError(
    "INVALID_MESSAGE",
    `Invalid ${field}: ${describe(issue, message)}`,
    { field },
  );
  return invalidParams(message.id, error);
}

/** What the guard needs of a transport: the SDK's `Transport` members. */
interface GuardedTransport {
  onmessage?: ((message: JSONRPCMessage, extra?: never) => void) | undefined;
  send(message: JSONRPCMessage): Promise<void>;
}

/**
 * Puts the check in front of a connected transport's `onmessage` (the SDK's
 * `Server.connect` set it): a request that does not fit is answered here
 * and never reaches the server; everything else passes as it came.
 */
export function guardRequests(transport: GuardedTransport): void {
  const next = transport.onmessage;
  if (!next) throw new Error("guardRequests: connect the server to the transport first");
  transport.onmessage = (message, extra) => {
    const refusal = invalidParamsAnswer(message);
    if (refusal) transport.send(refusal).catch(() => {});
    else next(message, extra);
  };
}
