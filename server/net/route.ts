/**
 * What an HTTP route is: a wire mapping (method, path, how the path, query
 * and body become the input) onto an operation of the core's catalog, which
 * gives it its summary, tag, policy, schemas and handler. Shared by the HTTP
 * interfaces (6.0 in `server/routes`, 5.0.0 in `server/legacy`).
 * @module
 */
import { z } from "zod";
import { type AnyOperation, operationNamed } from "../core/mod.ts";

/** What a request brings to its operation, before it is mapped into the input. */
export interface RouteWire {
  params: Record<string, string>;
  /** The declared query parameters that came. */
  query: Record<string, string>;
  /** The parsed JSON body (POST routes). */
  body: unknown;
}

/** One route: its wire mapping, and what it takes from its operation. */
export interface RouteSpec {
  method: "GET" | "POST" | "DELETE";
  /** Hono path syntax: `/api/v1/projects/:projectId`. */
  path: string;
  /** The operation it runs. */
  operation: AnyOperation;
  /** `METHOD path`, as refusals name it. */
  label: string;
  /** From the operation: */
  summary: string;
  tag: string;
  /** Whether a remote client needs a token (localhost is exempt by default). */
  auth: boolean;
  /** The query string's parameters, as sent (strings). */
  query?: z.ZodObject;
  /** The JSON body, when the operation takes one (its input without the path params). */
  body?: z.ZodType;
  /**
   * The handler reads the body itself, as a stream (uploads): the media types
   * it takes, each with its JSON Schema, as the OpenAPI document shows them.
   */
  rawBody?: Record<string, Record<string, unknown>>;
  response: z.ZodType;
  /**
   * The media types a picture route answers, its default first, when the route
   * chooses among its operation's (a thumbnail by its path's extension); default:
   * the operation's `produces`.
   */
  produces?: readonly string[];
  /** What the interface says of itself, for a describing operation (`info`, `openapi`, `v5Info`). */
  describe?: () => unknown;
  /** Takes an `Idempotency-Key` header: a retry gets the first outcome (docs/api.md). */
  idempotent?: boolean;
  /** How the request becomes the input; default: the path params and declared query over the body. */
  input?(wire: RouteWire): unknown;
  /**
   * How the operation's answer is put on this route's wire (the 5.0.0 single
   * Clip is one of the `clips` answer); default: as it is.
   */
  output?(answer: unknown, wire: RouteWire): unknown;
  /**
   * For a streamed body: decodes the request and runs the operation with
   * `run(input)` (its operation's `parse` takes the stream as it is), cleaning up after it.
   */
  invoke?(request: Request, wire: RouteWire, run: (input: unknown) => Promise<unknown>): Promise<
    unknown
  >;
}

/** How a route maps its wire onto its operation (see `RouteSpec`). */
export type RouteMapping =
  & Pick<RouteSpec, "query" | "rawBody" | "input" | "invoke" | "output" | "produces" | "describe">
  & Partial<Pick<RouteSpec, "response" | "summary">>;

/** Builds a route onto `operation` (a name of the catalog, or a transport's own operation). */
export function route(
  method: RouteSpec["method"],
  path: string,
  operation: string | AnyOperation,
  mapping: RouteMapping = {},
): RouteSpec {
  const op = typeof operation === "string" ? operationNamed(operation) : operation;
  const spec: RouteSpec = {
    method,
    path,
    operation: op,
    label: `${method} ${path}`,
    summary: op.summary,
    tag: op.tag,
    auth: op.scope !== null,
    response: op.output,
    ...mapping,
  };
  if (op.isIdempotent) spec.idempotent = true;
  if (method === "POST" && !mapping.rawBody) {
    const body = bodySchema(op.input, path);
    if (body) spec.body = body;
  }
  return spec;
}

/** The part of an input that comes in the body: all of it but the path params, if any is left. */
function bodySchema(input: z.ZodType, path: string): z.ZodType | undefined {
  if (!(input instanceof z.ZodObject)) return input;
  const pathParams = [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
  const mask: Record<string, true> = {};
  for (const p of pathParams) if (p in input.shape) mask[p] = true;
  const body = pathParams.length > 0 ? input.omit(mask as Record<never, true>) : input;
  return Object.keys(body.shape).length > 0 ? body : undefined;
}
