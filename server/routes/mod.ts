/**
 * The HTTP transport: a Hono app generated from the route table, over the
 * core. It decodes requests, calls the core, encodes the answer; it knows no
 * rule of its own.
 * @module
 */
import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import { type Core, CueportError } from "../core/mod.ts";
import { errorResponse } from "./errors.ts";
import { infoView } from "./info.ts";
import { openApiDocument } from "./openapi.ts";
import { type RouteSpec, routeTable } from "./table.ts";

/** What the HTTP app needs besides the core. */
export interface HttpAppOptions {
  version: string;
  startedAt: number;
  /** The bound ports (known once listening). */
  ports: () => { http: number; ws: number; osc: number };
  /** Origins allowed to call from a browser; `*` allows any. */
  corsOrigins: readonly string[];
  /** Largest JSON body accepted, bytes. */
  maxBodyBytes?: number;
  /** Where unexpected errors are logged with their stack. */
  log?: (message: string) => void;
}

/** The routes with the generated meta routes (info, OpenAPI) appended. */
export function allRoutes(
  options: Pick<HttpAppOptions, "version" | "startedAt" | "ports">,
): RouteSpec[] {
  const routes = routeTable(options);
  const meta: RouteSpec[] = [
    {
      method: "GET",
      path: "/api/v1/info",
      summary: "API version, app version, ports and the map of every endpoint",
      tag: "service",
      auth: true,
      response: infoView.schema,
      handle: () => infoView.build(all, options.version, options.ports()),
    },
    {
      method: "GET",
      path: "/api/v1/openapi.json",
      summary: "This API as an OpenAPI 3.1 document",
      tag: "service",
      auth: true,
      response: openApiDocument.schema,
      handle: () => openApiDocument.build(all, options.version),
    },
  ];
  const all = [...routes, ...meta];
  return all;
}

async function readJsonBody(c: Context, limit: number): Promise<unknown> {
  const length = Number(c.req.header("content-length") ?? "0");
  if (length > limit) {
    throw new CueportError("PAYLOAD_TOO_LARGE", `Body too large: over ${limit} bytes`);
  }
  const text = await c.req.text();
  if (text.length > limit) {
    throw new CueportError("PAYLOAD_TOO_LARGE", `Body too large: over ${limit} bytes`);
  }
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new CueportError("INVALID_MESSAGE", "Invalid body: not valid JSON", { field: "body" });
  }
}

function allowedMethods(routes: RouteSpec[], path: string): string[] {
  return routes.filter((r) => {
    const pattern = new RegExp("^" + r.path.replace(/:[A-Za-z]+/g, "[^/]+") + "/?$");
    return pattern.test(path);
  }).map((r) => r.method);
}

/** Builds the HTTP app. */
export function createHttpApp(core: Core, options: HttpAppOptions): Hono {
  const routes = allRoutes(options);
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  const anyOrigin = options.corsOrigins.includes("*");
  const app = new Hono();
  app.onError((error, c) => {
    if (!(error instanceof CueportError)) {
      options.log?.(`HTTP ${c.req.method} ${c.req.path}: ${error.stack ?? error}`);
    }
    return errorResponse(error, c);
  });
  app.use(
    "*",
    cors({
      origin: (origin) => (anyOrigin || options.corsOrigins.includes(origin) ? origin : null),
      allowMethods: ["GET", "POST", "OPTIONS"],
      allowHeaders: ["Content-Type", "Authorization"],
      maxAge: 600,
    }),
  );
  for (const route of routes) {
    app.on(route.method, route.path, async (c) => {
      const body = route.method === "POST" ? await readJsonBody(c, limit) : undefined;
      const result = await route.handle({
        core,
        params: c.req.param(),
        query: c.req.query(),
        body,
      });
      return c.json(result as object);
    });
  }
  app.notFound((c) => {
    const allowed = allowedMethods(routes, c.req.path);
    if (allowed.length > 0) {
      c.header("Allow", [...allowed, "OPTIONS"].join(", "));
      throw new CueportError(
        "METHOD_NOT_ALLOWED",
        `${c.req.method} is not allowed on ${c.req.path}: use ${allowed.join(" or ")}`,
      );
    }
    throw new CueportError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`);
  });
  return app;
}
