/**
 * A POST's JSON body read two ways by a bare `Deno.serve`, no Cueport: `JSON.parse(await
 * request.text())` against `await request.json()` (Deno's own path for a body its HTTP engine
 * already holds: one string, one parse), each on its own port, driven in turn by `load.ts` with
 * the action's body; this process's CPU per request (the load generator is its own process) and
 * the paired per-round difference (docs/load.md, "The service's side").
 *
 * `deno run -A bench/body_read_bench.ts --rounds 24`
 * @module
 */
import { parseArgs } from "node:util";
import { postLoad, threadCpuMicros } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string", default: "24" }, seconds: { type: "string", default: "2" } },
});

const HEADERS = { "content-type": "application/json" };
const serve = (read: (request: Request) => Promise<{ name?: unknown }>) =>
  Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await read(request);
    return new Response(JSON.stringify({ ok: true, name: body.name }), { headers: HEADERS });
  });
const servers = {
  text: serve(async (request) => JSON.parse(await request.text())),
  json: serve((request) => request.json()),
};
const BODY = JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const loadAverage = () => Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
const runs: Record<keyof typeof servers, number[]> = { text: [], json: [] };
console.log(`load average ${loadAverage()} at the start`);
for (const server of Object.values(servers)) {
  await postLoad(`http://127.0.0.1:${server.addr.port}/`, BODY, 16, 1); // warm up
}
for (let round = 0; round < Number(values.rounds); round++) {
  const order: Array<keyof typeof servers> = round % 2 ? ["json", "text"] : ["text", "json"];
  for (const name of order) {
    const before = threadCpuMicros();
    const requests = await postLoad(
      `http://127.0.0.1:${servers[name].addr.port}/`,
      BODY,
      16,
      values.seconds!,
    );
    runs[name].push((threadCpuMicros() - before) / requests);
  }
}
const d = runs.json.map((x, i) => x - runs.text[i]!);
console.log(
  `text ${median(runs.text).toFixed(2)} us a request, json ${median(runs.json).toFixed(2)}`,
);
console.log(
  `json - text, paired (median): ${median(d).toFixed(2)}; each round ${
    d.map((x) => x.toFixed(1)).join(", ")
  }`,
);
console.log(`load average ${loadAverage()} at the end`);
await Promise.all(Object.values(servers).map((server) => server.shutdown()));
