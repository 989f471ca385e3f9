// The bare baseline: Deno.serve and nothing else. Its first argument names a JSON manifest,
// `{ "gets": { "/path": { "file": "...", "type": "content-type" } }, "action": { "projectId":
// "demo", "params": ["controlID", "value"] } }`. Each path of `gets` answers that file's bytes
// with that content type, the very bytes and type Cueport answered for the row the baseline
// stands beside (http_bench.ts, media_bench.ts), read into memory once. Text types are sent as a
// string, the fastest body Deno.serve sends; others as bytes. Any other GET answers a small JSON
// body.
//
// A POST reads its JSON body and answers the very bytes Cueport answers the same action
// (`{"ok":true,"action":...,"projectId":...,"params":{...},"applied":true,"message":...}`):
// `action` is what Cueport's answer holds beyond the body and the player's result, captured from
// Cueport once (`captureAction` in _baseline.ts): the Project it answered for and the names of
// the params. A POST to `/` builds the result itself (the same-work baseline of the action). A
// POST to `/relay` forwards the whole body to a bare child process over stdio
// (baseline_child.ts), which answers a result of the player's size (`applied` and its
// `message`), and answers with that result: the limit of Cueport's design (a service in front of
// a player process), with none of Cueport's own work.
interface Manifest {
  gets?: Record<string, { file: string; type: string }>;
  action?: { projectId: string | null; params: string[] };
}
const manifest: Manifest = Deno.args[0] ? JSON.parse(await Deno.readTextFile(Deno.args[0])) : {};
const answers = new Map<string, { body: string | Uint8Array<ArrayBuffer>; type: string }>();
for (const [path, { file, type }] of Object.entries(manifest.gets ?? {})) {
  const isText = /json|text/.test(type);
  answers.set(path, {
    body: isText ? await Deno.readTextFile(file) : await Deno.readFile(file),
    type,
  });
}
const projectId = manifest.action?.projectId ?? null;
const paramNames = manifest.action?.params ?? null;
const small = JSON.stringify({ fullScreen: false, muted: false, volume: 1 });
const headers = { "content-type": "application/json" };

/** The body's params by name, as Cueport's answer gives them (positional params named). */
function named(params: unknown): unknown {
  if (paramNames === null || !Array.isArray(params)) return params;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < paramNames.length; i++) out[paramNames[i]!] = params[i];
  return out;
}

/** Cueport's answer to the action `body` whose player's result is `result`. */
const answer = (body: { name?: unknown; params?: unknown }, result: object) =>
  JSON.stringify({ ok: true, action: body.name, projectId, params: named(body.params), ...result });

const child = new Deno.Command(Deno.execPath(), {
  args: ["run", new URL("./baseline_child.ts", import.meta.url).pathname],
  stdin: "piped",
  stdout: "piped",
}).spawn();
const toChild = child.stdin.getWriter();
const encoder = new TextEncoder();
const waiting = new Map<number, (result: object) => void>();
let nextId = 0;
(async () => {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of child.stdout) {
    pending += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      const { id, result } = JSON.parse(line);
      waiting.get(id)?.(result);
      waiting.delete(id);
    }
  }
})();
// The requests of one turn of the event loop go to the child in one write, as Cueport's service
// sends them (server/player_client/rpc_client.ts): one write per request cost the child a read and
// a wake-up each.
let queued = "";
let isWriting = false;
const flush = () => {
  if (isWriting || queued === "") return;
  const text = queued;
  queued = "";
  isWriting = true;
  void toChild.write(encoder.encode(text)).then(() => {
    isWriting = false;
    flush();
  });
};
const turn = new MessageChannel();
turn.port1.onmessage = flush;
/** The child's result for the action `body`, the whole body forwarded. */
const relay = (body: object) =>
  new Promise<object>((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    if (queued === "") turn.port2.postMessage(0);
    queued += JSON.stringify({ id, action: body }) + "\n";
  });

/** The result the player gives the bench's `SET_CONTROL` (as baseline_child.ts words it). */
const resultOf = (body: { params?: unknown }) => {
  const [id, value] = Array.isArray(body.params) ? body.params : [];
  return { applied: true, message: `Control ${id} = ${value}: 1 Target(s) written` };
};

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(JSON.stringify({ port, childPid: child.pid })),
}, async (req) => {
  if (req.method === "POST") {
    const body = JSON.parse(await req.text());
    if (new URL(req.url).pathname === "/relay") {
      return new Response(answer(body, await relay(body)), { headers });
    }
    return new Response(answer(body, resultOf(body)), { headers });
  }
  const found = answers.get(new URL(req.url).pathname);
  if (found) return new Response(found.body, { headers: { "content-type": found.type } });
  return new Response(small, { headers });
});
