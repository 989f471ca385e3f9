/**
 * The built-in load generator, used when wrk is not installed: `connections`
 * request loops over keep-alive connections for `seconds`, then one JSON
 * line with requests/s and latency percentiles. Runs as its own process.
 * @module
 */
const [url, method = "GET", body = "", connections = "32", seconds = "5"] = Deno.args;
const latencies: number[] = [];
let errors = 0;
const end = performance.now() + Number(seconds) * 1000;
async function loop() {
  while (performance.now() < end) {
    const start = performance.now();
    try {
      const res = await fetch(
        url!,
        method === "GET" ? {} : { method, body, headers: { "content-type": "application/json" } },
      );
      await res.arrayBuffer();
      if (!res.ok) errors++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - start);
  }
}
const started = performance.now();
await Promise.all(Array.from({ length: Number(connections) }, loop));
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
console.log(
  JSON.stringify({
    requests: latencies.length,
    errors,
    rps: latencies.length / elapsed,
    p50: pct(0.5),
    p99: pct(0.99),
  }),
);
