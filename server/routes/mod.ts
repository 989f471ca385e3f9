/**
 * The HTTP transport: a Hono app over the core.
 * @module
 */
import { Hono } from "hono";
import { type Core, CueportError } from "../core/mod.ts";
import { errorResponse } from "./errors.ts";

/** What the HTTP app needs besides the core. */
export interface HttpAppOptions {
  version: string;
  startedAt: number;
}

/** Builds the HTTP app. */
export function createHttpApp(core: Core, options: HttpAppOptions): Hono {
  const app = new Hono();
  app.onError(errorResponse);
  app.notFound((c) => {
    throw new CueportError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`);
  });
  app.get("/health", (c) =>
    c.json({
      status: core.isReady ? "ok" : "starting",
      ready: core.isReady,
      version: options.version,
      uptimeSeconds: Math.round((performance.now() - options.startedAt) / 1000),
      player: core.playerInfo?.player ?? null,
    }));
  return app;
}
