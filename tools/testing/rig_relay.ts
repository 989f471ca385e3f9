/**
 * A client of one rig, run inside the rig's network namespace (`RigRelay` in
 * `etcd_cluster.ts` starts it): one process for many requests, where a `curl`
 * per request would cost a process each. It reads requests from stdin, one
 * JSON line each (`{"id", "path", "body"?, "headers"?}`: a POST when there is
 * a body, else a GET), sends them at once to `http://127.0.0.1:<port>`, and writes
 * each answer as it comes, one JSON line: `{"id", "status", "body"}` (status
 * 0: no answer within 20 s). `deno run --allow-net rig_relay.ts <port>`.
 * @module
 */
/** One request, as read from stdin. */
export interface RelayRequest {
  id: number;
  path: string;
  body?: unknown;
  /** Headers added (`Idempotency-Key`). */
  headers?: Record<string, string>;
}

/** One answer, as written to stdout. */
export interface RelayAnswer {
  id: number;
  status: number;
  body: Record<string, unknown>;
}

/** Sends `request` to the rig on `port`; its answer (status 0 when none came). */
async function send(port: number, request: RelayRequest): Promise<RelayAnswer> {
  const post = request.body !== undefined;
  try {
    const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
      method: post ? "POST" : "GET",
      headers: { ...(post ? { "content-type": "application/json" } : {}), ...request.headers },
      body: post ? JSON.stringify(request.body) : null,
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text);
    } catch {
      body = { text: text.slice(0, 200) };
    }
    return { id: request.id, status: response.status, body };
  } catch (error) {
    return { id: request.id, status: 0, body: { error: String(error) } };
  }
}

if (import.meta.main) {
  const port = Number(Deno.args[0]);
  const encoder = new TextEncoder();
  const out = Deno.stdout.writable.getWriter();
  const write = (answer: RelayAnswer) => out.write(encoder.encode(`${JSON.stringify(answer)}\n`));
  let text = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    text += chunk;
    const lines = text.split("\n");
    text = lines.pop()!;
    for (const line of lines.filter((l) => l.trim() !== "")) {
      void send(port, JSON.parse(line) as RelayRequest).then(write);
    }
  }
}
