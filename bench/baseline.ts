// The bare baseline: Deno.serve and nothing else. Its first argument names a JSON file of the GET
// answers to serve, `{ "/path": { "file": "...", "type": "content-type" } }`: each path answers
// that file's bytes with that content type, the very bytes and type Cueport answered for the row
// the baseline stands beside (http_bench.ts, media_bench.ts), read into memory once. Text types
// are sent as a string, the fastest body Deno.serve sends; others as bytes. Any other GET answers
// a small JSON body. A POST reads its JSON body first (the same-work baseline of the action). A
// POST to `/relay` also forwards that body to a bare child process over stdio (baseline_child.ts)
// and answers the child's reply: the limit of Cueport's design (a service in front of a player
// process), with none of Cueport's own work.
const manifest: Record<string, { file: string; type: string }> = Deno.args[0]
  ? JSON.parse(await Deno.readTextFile(Deno.args[0]))
  : {};
const answers = new Map<string, { body: string | Uint8Array<ArrayBuffer>; type: string }>();
for (const [path, { file, type }] of Object.entries(manifest)) {
  const isText = /json|text/.test(type);
  answers.set(path, {
    body: isText ? await Deno.readTextFile(file) : await Deno.readFile(file),
    type,
  });
}
const small = JSON.stringify({ fullScreen: false, muted: false, volume: 1 });
const headers = { "content-type": "application/json" };
const child = new Deno.Command(Deno.execPath(), {
  args: ["run", new URL("./baseline_child.ts", import.meta.url).pathname],
  stdin: "piped",
  stdout: "piped",
}).spawn();
const toChild = child.stdin.getWriter();
const encoder = new TextEncoder();
const waiting = new Map<number, (reply: string) => void>();
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
      waiting.get(id)?.(JSON.stringify({ ok: true, ...result }));
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
const relay = (body: { name?: unknown }) =>
  new Promise<string>((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    if (queued === "") turn.port2.postMessage(0);
    queued += JSON.stringify({ id, name: body.name }) + "\n";
  });

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(JSON.stringify({ port, childPid: child.pid })),
}, async (req) => {
  if (req.method === "POST") {
    const body = JSON.parse(await req.text());
    if (new URL(req.url).pathname === "/relay") return new Response(await relay(body), { headers });
    return new Response(JSON.stringify({ ok: true, name: body.name }), { headers });
  }
  const answer = answers.get(new URL(req.url).pathname);
  if (answer) return new Response(answer.body, { headers: { "content-type": answer.type } });
  return new Response(small, { headers });
});
