/**
 * Hono's `cors` and `bodyLimit` middleware against what the HTTP engine does
 * without them (`server/routes/cors.ts`, the route's own bounded reader
 * `readJsonBody`, against `bodyLimit` and Hono's `c.req.json()`), in
 * process on `app.fetch`: a GET without `Origin` (what curl, Companion and
 * scripts send) and a small POST with a declared length. Prints microseconds
 * per request for three rounds; the comments of `server/routes/cors.ts` and
 * `readJsonBody` (`server/routes/mod.ts`) quote it.
 *
 * `deno run -A bench/hono_middleware_bench.ts`
 * @module
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import { bodyLimit } from "hono/body-limit";
import { withCors } from "../server/routes/cors.ts";
import { readJsonBody } from "../server/routes/mod.ts";

const ORIGINS = ["http://remote.local"];
const N = 200_000;
const LIMIT = 1024 * 1024;

function app(middleware: "none" | "cors" | "bodyLimit"): Hono {
  const a = new Hono();
  if (middleware === "cors") a.use(cors({ origin: ORIGINS, maxAge: 600 }));
  if (middleware === "bodyLimit") a.use(bodyLimit({ maxSize: LIMIT }));
  a.get(
    "/r",
    () => new Response('{"ok":true}', { headers: { "content-type": "application/json" } }),
  );
  // The body as a route reads it: our bounded reader, or after bodyLimit, Hono's own.
  a.post("/r", async (c) => {
    const body = middleware === "bodyLimit" ? await c.req.json() : await readJsonBody(c, LIMIT);
    return new Response(JSON.stringify(body));
  });
  return a;
}

const plain = app("none");
const ours = withCors<undefined>((request: Request) => plain.fetch(request), {
  origins: ORIGINS,
  methods: ["GET", "POST"],
  headers: ["Content-Type"],
  maxAgeSeconds: 600,
});
const honoCors = app("cors");
const limited = app("bodyLimit");

async function usPerRequest(handle: () => unknown): Promise<number> {
  for (let i = 0; i < N / 10; i++) await handle();
  const start = performance.now();
  for (let i = 0; i < N; i++) await handle();
  return (performance.now() - start) * 1000 / N;
}

const get = () => new Request("http://localhost/r");
const post = () =>
  new Request("http://localhost/r", {
    method: "POST",
    body: '{"name":"PLAY"}',
    headers: { "content-length": "15" },
  });
for (let round = 1; round <= 3; round++) {
  const figures = {
    "GET, withCors": await usPerRequest(() => ours(get(), undefined)),
    "GET, hono cors()": await usPerRequest(() => honoCors.fetch(get())),
    "POST, readJsonBody": await usPerRequest(() => plain.fetch(post())),
    "POST, hono bodyLimit()": await usPerRequest(() => limited.fetch(post())),
  };
  console.log(
    `round ${round}: ` +
      Object.entries(figures).map(([name, us]) => `${name} ${us.toFixed(1)} us`).join(", "),
  );
}
