// The bare child of the relay baseline (baseline.ts, `/relay`): reads one JSON
// request per line on stdin, `{"id":N,"action":<the request's whole body>}`, and
// answers each with one JSON line on stdout, in order: a result of the player's
// size, `{"applied":true,"message":"Control A = 0.5: 1 Target(s) written"}`, the
// message the player words for the bench's `SET_CONTROL` (player/actions/
// seek_control.ts). What a player at the very least does, and nothing more, done
// as cheaply as Deno allows, so the design's limit is a fair one: stdin read as a
// `node:net` socket polled on the event loop (`Deno.stdin` is served on Deno's
// blocking thread pool, two thread switches per read: player/stdio_pipe.ts), the
// answers to one read written together with one synchronous write.
import { Socket } from "node:net";

const decoder = new TextDecoder();
const encoder = new TextEncoder();
let pending = "";
const input = new Socket({ fd: 0, readable: true, writable: false });
input.on("data", (chunk: Uint8Array) => {
  pending += decoder.decode(chunk, { stream: true });
  let out = "";
  let end: number;
  while ((end = pending.indexOf("\n")) >= 0) {
    const { id, action } = JSON.parse(pending.slice(0, end));
    pending = pending.slice(end + 1);
    const [control, value] = Array.isArray(action?.params) ? action.params : [];
    const message = `Control ${control} = ${value}: 1 Target(s) written`;
    out += JSON.stringify({ id, result: { applied: true, message } }) + "\n";
  }
  if (!out) return;
  const bytes = encoder.encode(out);
  let offset = 0;
  while (offset < bytes.length) offset += Deno.stdout.writeSync(bytes.subarray(offset));
});
input.on("end", () => Deno.exit(0));
