// The bare baseline: Deno.serve and nothing else. `/` answers a small JSON
// body; `/file` answers the text of the file named by the first argument (the
// bench passes the demo project's JSON, for a same-payload comparison). Both
// are strings, the fastest body Deno.serve sends; `/image` answers bytes. A POST reads its JSON body
// first (the same-work baseline of the action). A POST to `/relay` also
// forwards that body to a bare child process over stdio (baseline_child.ts)
// and answers the child's reply: the limit of Cueport's design (a service in
// front of a player process), with none of Cueport's own work.
const file = Deno.args[0] ? await Deno.readTextFile(Deno.args[0]) : "";
// `/image` answers the bytes of the file named by the second argument (a thumbnail), as a JPEG.
const image = Deno.args[1] ? await Deno.readFile(Deno.args[1]) : new Uint8Array();
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
const relay = (body: { name?: unknown }) =>
  new Promise<string>((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    void toChild.write(encoder.encode(JSON.stringify({ id, name: body.name }) + "\n"));
  });

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(JSON.stringify({ port })),
}, async (req) => {
  if (req.method === "POST") {
    const body = JSON.parse(await req.text());
    if (new URL(req.url).pathname === "/relay") return new Response(await relay(body), { headers });
    return new Response(JSON.stringify({ ok: true, name: body.name }), { headers });
  }
  const path = new URL(req.url).pathname;
  if (path === "/image") return new Response(image, { headers: { "content-type": "image/jpeg" } });
  return new Response(path === "/file" ? file : small, { headers });
});
