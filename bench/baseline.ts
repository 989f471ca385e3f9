// The bare baseline: Deno.serve and nothing else. `/` answers a small JSON
// body; `/file` answers the text of the file named by the first argument (the
// bench passes the demo project's JSON, for a same-payload comparison). Both
// are strings, the fastest body Deno.serve sends. A POST reads its JSON body
// first (the same-work baseline of the action).
const file = Deno.args[0] ? await Deno.readTextFile(Deno.args[0]) : "";
const small = JSON.stringify({ fullScreen: false, muted: false, volume: 1 });
const headers = { "content-type": "application/json" };
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(JSON.stringify({ port })),
}, async (req) => {
  if (req.method === "POST") {
    const body = JSON.parse(await req.text());
    return new Response(JSON.stringify({ ok: true, name: body.name }), { headers });
  }
  return new Response(new URL(req.url).pathname === "/file" ? file : small, { headers });
});
