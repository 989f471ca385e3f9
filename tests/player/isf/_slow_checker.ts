/**
 * A stand-in for the check's process that is slow but makes progress: ten
 * progress reports, then the answer (a valid check, no program).
 * @module
 */
const lines: string[] = [];
for (let work = 1024; work <= 10 * 1024; work += 1024) {
  lines.push(JSON.stringify({ progress: work }));
}
const result = { ok: false, problems: [{ line: 1, column: 1, message: "slow" }] };
lines.push(JSON.stringify({ result, heapMb: 1 }));
await Deno.stdin.readable.getReader().read();
await Deno.stdout.write(new TextEncoder().encode(lines.join("\n") + "\n"));
