import assert from "node:assert/strict";
import { NO_CHECK_ENV, testProcessArgs } from "../../tools/test.ts";
import { testFlags } from "../../server/deploy/permissions.ts";

const RUNNER = new URL("../../tools/test.ts", import.meta.url).pathname;

/** `deno task test` (tools/test.ts) on `files`, with `env`: its exit code and output. */
async function runRunner(files: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-run",
      "--allow-read",
      "--allow-env",
      "--allow-sys=uid",
      RUNNER,
      ...files,
    ],
    env: { CUEPORT_TEST_INSTALL: "0", NO_COLOR: "1", RUST_BACKTRACE: "", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, out: text(out.stdout) + text(out.stderr) };
}

Deno.test("testProcessArgs() adds --no-check only when asked, before the files", () => {
  const flags = testFlags();
  assert.deepEqual(testProcessArgs(["tests/a_test.ts"], false), [
    "test",
    ...flags,
    "tests/a_test.ts",
  ]);
  assert.deepEqual(testProcessArgs(["tests/a_test.ts"], true), [
    "test",
    ...flags,
    "--no-check",
    "tests/a_test.ts",
  ]);
});

Deno.test(`the test command type-checks the tests unless ${NO_CHECK_ENV}=1 (CI's check did it)`, async () => {
  const dir = await Deno.makeTempDir({ prefix: "cueport-no-check-" });
  try {
    // A test that runs fine and does not type-check: only the check can fail it.
    const file = `${dir}/typo_test.ts`;
    await Deno.writeTextFile(file, `const n: number = "one";\nDeno.test("runs", () => {});\n`);
    const checked = await runRunner([file], { [NO_CHECK_ENV]: "" });
    assert.notEqual(checked.code, 0, checked.out);
    assert.match(checked.out, /TS2322/);

    const unchecked = await runRunner([file], { [NO_CHECK_ENV]: "1" });
    assert.equal(unchecked.code, 0, unchecked.out);
    assert.match(unchecked.out, /runs \.\.\. ok/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
