/**
 * The browser's CPU time as the player reads it: the player has no `--allow-all`, so Deno refuses
 * it `/proc/<pid>/stat`; the figures come through `cat` instead, a reading behind, and grow with
 * the work of the process tree.
 */
import assert from "node:assert/strict";

Deno.test("processTreeCpuMs() gives figures to a program without --allow-all (the player)", async () => {
  const module = new URL("../../../player/output/process_cpu.ts", import.meta.url).href;
  // As the player runs: read and run, not all. It burns CPU between two readings of itself; its
  // polls are bounded by count (a minute of them), not by a time a busy machine could pass.
  const code = `import { processTreeCpuMs } from "${module}";
const first = [];
for (let i = 0; i < 3000 && first.length === 0; i++) {
  const ms = processTreeCpuMs(Deno.pid);
  if (ms !== null) first.push(ms);
  await new Promise((r) => setTimeout(r, 20));
}
const end = performance.now() + 300;
while (performance.now() < end) Math.sqrt(Math.random());
let later = null;
for (let i = 0; i < 3000 && (later === null || later <= first[0]); i++) {
  later = processTreeCpuMs(Deno.pid);
  await new Promise((r) => setTimeout(r, 20));
}
console.log(JSON.stringify({ first: first[0] ?? null, later }));`;
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(file, code);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--allow-read", "--allow-run", file],
      env: { RUST_BACKTRACE: "0" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const { first, later } = JSON.parse(text.split("\n").at(-1)!);
    assert.notEqual(first, null, "a figure, not unknown");
    assert.ok(later > first, `grew with work: ${first} -> ${later}`);
  } finally {
    await Deno.remove(file);
  }
});
