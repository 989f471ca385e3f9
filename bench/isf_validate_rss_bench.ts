/**
 * The bundled player's RSS (from /proc, Linux) across `preset.validate` edits in a row over
 * its stdio, as the service sends them: `big` (199 KB: refused at once by the character
 * bound) or `heavy` (48 KB of declarations: refused too large to check).
 *
 * `deno run -A bench/isf_validate_rss_bench.ts 50 big`
 * @module
 */
import { bundledPlayerCommand } from "../server/player_client/spawn.ts";

const n = Number(Deno.args[0] ?? 50);
const dataDir = await Deno.makeTempDir();
const [program, ...args] = bundledPlayerCommand({ dataDir });
const child = new Deno.Command(program!, { args, stdin: "piped", stdout: "piped", stderr: "null" })
  .spawn();
const writer = child.stdin.getWriter();
const waits = new Map<number, (line: string) => void>();
(async () => {
  let buf = "";
  for await (const t of child.stdout.pipeThrough(new TextDecoderStream())) {
    buf += t;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const m = /"id":(\d+)/.exec(line.slice(0, 40)) ?? /"id":(\d+)[,}]/.exec(line);
      if (m && line.includes('"jsonrpc"') && !line.includes('"method"')) {
        waits.get(Number(m[1]))?.(line);
      }
    }
  }
})();
let id = 0;
function call(method: string, params: unknown): Promise<string> {
  const my = ++id;
  const p = new Promise<string>((r) => waits.set(my, r));
  writer.write(
    new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: my, method, params }) + "\n"),
  );
  return p;
}
const rss = async () => {
  const s = await Deno.readTextFile(`/proc/${child.pid}/status`);
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(s)![1]) / 1024);
};
const INVERT = `/*{ "INPUTS": [ { "NAME": "inputImage", "TYPE": "image" } ] }*/
void main() {
  vec4 c = IMG_THIS_PIXEL(inputImage);
  gl_FragColor = vec4(1.0 - c.rgb, c.a);
}
`;
const code = Deno.args[1] === "heavy"
  ? INVERT.replace("void main() {", "float f0 = 1.0;\n".repeat(3000) + "void main() {")
  : INVERT + "// " + "x".repeat(199_000) + "\n";
await call("initialize", { protocolVersion: "1.1", client: { name: "bench", version: "0" } });
// The first validate also warms the check.
const first = await call("edit.apply", {
  projectId: null,
  edits: [{
    name: "preset.validate",
    params: { kind: "effect", name: "V", type: "isf", code: INVERT },
  }],
});
const before = await rss();
const t0 = performance.now();
let last = "";
let peak = before;
for (let i = 0; i < n; i++) {
  last = await call("edit.apply", {
    projectId: null,
    edits: [{ name: "preset.validate", params: { kind: "effect", name: "V", type: "isf", code } }],
  });
  peak = Math.max(peak, await rss());
}
const ms = (performance.now() - t0) / n;
console.log(
  `player RSS ${before} -> ${await rss()} MB (peak ${peak}) over ${n} preset.validate of ${code.length} chars; ${
    ms.toFixed(0)
  } ms each; first: ${first.slice(0, 80)}; last: ${last.slice(0, 200)}`,
);
child.kill("SIGKILL");
await child.status;
await Deno.remove(dataDir, { recursive: true });
Deno.exit(0);
