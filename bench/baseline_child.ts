// The bare child of the relay baseline (baseline.ts, `/relay`): reads one JSON
// request per line on stdin and answers each with one JSON line on stdout, in
// order. What a player at the very least does, and nothing more.
const encoder = new TextEncoder();
const decoder = new TextDecoder();
let pending = "";
for await (const chunk of Deno.stdin.readable) {
  pending += decoder.decode(chunk, { stream: true });
  let out = "";
  let end: number;
  while ((end = pending.indexOf("\n")) >= 0) {
    const request = JSON.parse(pending.slice(0, end));
    pending = pending.slice(end + 1);
    out += JSON.stringify({ id: request.id, result: { applied: true, name: request.name } }) + "\n";
  }
  if (out) await Deno.stdout.write(encoder.encode(out));
}
