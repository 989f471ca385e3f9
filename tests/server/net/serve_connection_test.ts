import assert from "node:assert/strict";
import {
  requestHeader,
  serveOnConnection,
  serveOnConnectionProblem,
  VERIFIED_DENO,
} from "../../../server/net/serve_connection.ts";
import { SERVICE_FLAGS } from "../../../server/deploy/permissions.ts";

Deno.test("serve_connection: the private per-connection server was verified on this very Deno", () => {
  // Breaks on the next Deno on purpose: Deno[Deno.internal].serveHttpOnConnection is internal and
  // may change with any release, silently (its arguments, the abort listener, `finished`).
  assert.equal(
    Deno.version.deno,
    VERIFIED_DENO,
    `Deno ${Deno.version.deno} is not ${VERIFIED_DENO}, the version serve_connection.ts was ` +
      "verified on. Re-verify serveHttpOnConnection (its five arguments, that the abort listener " +
      "closes the connection, that `finished` settles) and requestHeader's read of Deno's inner " +
      "request (its `header(name)`): tests/server/net/, then `deno task " +
      "reliability --only exhaustion,stalled_bodies` and bench/http_bench.ts; then set " +
      "VERIFIED_DENO (and pin the new Deno where 2.9.6 is pinned). docs/load.md, " +
      '"No public API keeps the budgets", says why the call is there.',
  );
});

Deno.test("serve_connection: the self-check finds the per-connection server on this Deno", () => {
  assert.equal(serveOnConnectionProblem(), null);
});

Deno.test("cueport serve on a Deno without the per-connection server: one line naming the Deno version, exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cueport-serve-check-" });
  try {
    // What a Deno without the internal would be: removed before Cueport's modules load.
    const preload = `${dir}/remove_internal.ts`;
    await Deno.writeTextFile(
      preload,
      "// deno-lint-ignore no-explicit-any\n" +
        "delete (Deno as any)[(Deno as any).internal].serveHttpOnConnection;\n",
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...SERVICE_FLAGS,
        "--preload",
        preload,
        new URL("../../../main.ts", import.meta.url).pathname,
        ...["serve", "--data-dir", `${dir}/data`, "--host", "127.0.0.1", "--mdns", "off"],
        ...["--http-port", "0", "--ws-port", "0", "--osc-port", "0", "--osc-query-port", "0"],
        ...["--legacy-http-port", "off", "--legacy-ws-port", "off", "--output", "none"],
      ],
      stdout: "piped",
      stderr: "piped",
      env: { RUST_BACKTRACE: "0" },
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, stderr);
    assert.equal(new TextDecoder().decode(out.stdout), "", "no ready line");
    const lines = stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, `one line, no stack:\n${stderr}`);
    assert.match(lines[0]!, new RegExp(`^cueport: This Deno \\(${Deno.version.deno}\\) `));
    assert.match(lines[0]!, /serveHttpOnConnection/);
    assert.match(lines[0]!, new RegExp(`Deno ${VERIFIED_DENO}`));
    assert.doesNotMatch(lines[0]!, /port 0|cannot be bound/, "not told as a port to change");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** What `handler` answered a request with `headers`, served as the HTTP ports serve one. */
async function served(
  headers: HeadersInit,
  handler: (request: Request) => unknown,
): Promise<unknown> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serve = serveOnConnection();
  let seen: unknown;
  const accepted = listener.accept().then((conn) =>
    serve(conn, (request) => {
      seen = handler(request);
      return new Response("ok");
    }, () => new Response("failed", { status: 500 }))
  );
  const { port } = listener.addr as Deno.NetAddr;
  const response = await fetch(`http://127.0.0.1:${port}/x`, { headers });
  await response.text();
  const connection = await accepted;
  connection.close();
  await connection.finished;
  listener.close();
  return seen;
}

/** Whether Deno built the request's `Headers` (its private `headers cache` field is set). */
function headersBuilt(request: Request): boolean {
  const key = Object.getOwnPropertySymbols(request).find((s) => s.description === "headers cache");
  assert.ok(key, "Deno's Request keeps its Headers under Symbol(headers cache)");
  return (request as unknown as Record<symbol, unknown>)[key] !== undefined;
}

Deno.test("requestHeader: a served request's header is read from Deno's engine, as Headers.get gives it, without building its Headers", async () => {
  const seen = await served(
    [["x-two", "a"], ["x-two", "b"], ["origin", "http://show.local"]],
    (r) => {
      const read = {
        origin: requestHeader(r, "origin"),
        two: requestHeader(r, "x-two"),
        absent: requestHeader(r, "x-none"),
        host: requestHeader(r, "host"),
        upper: requestHeader(r, "Origin"),
      };
      return { read, built: headersBuilt(r), public: r.headers.get("x-two") };
    },
  ) as { read: Record<string, string | null>; built: boolean; public: string };
  assert.equal(seen.built, false, "the fast read (Deno's inner request's header) was taken");
  assert.deepEqual(seen.read, {
    origin: "http://show.local",
    two: seen.public,
    absent: null,
    host: seen.read.host,
    upper: "http://show.local",
  });
  assert.equal(seen.public, "a, b");
  assert.match(seen.read.host!, /^127\.0\.0\.1:\d+$/);
});

Deno.test("requestHeader: a request Deno does not serve (a test's) is read through its Headers", () => {
  const request = new Request("http://localhost/", {
    headers: { origin: "http://a", "x-two": "1" },
  });
  assert.equal(requestHeader(request, "origin"), "http://a");
  assert.equal(requestHeader(request, "x-none"), null);
});
