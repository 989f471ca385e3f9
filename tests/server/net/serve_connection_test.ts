import assert from "node:assert/strict";
import { serveOnConnectionProblem, VERIFIED_DENO } from "../../../server/net/serve_connection.ts";
import { SERVICE_FLAGS } from "../../../server/deploy/permissions.ts";

Deno.test("serve_connection: the private per-connection server was verified on this very Deno", () => {
  // Breaks on the next Deno on purpose: Deno[Deno.internal].serveHttpOnConnection is internal and
  // may change with any release, silently (its arguments, the abort listener, `finished`).
  assert.equal(
    Deno.version.deno,
    VERIFIED_DENO,
    `Deno ${Deno.version.deno} is not ${VERIFIED_DENO}, the version serve_connection.ts was ` +
      "verified on. Re-verify serveHttpOnConnection (its five arguments, that the abort listener " +
      "closes the connection, that `finished` settles): tests/server/net/, then `deno task " +
      "reliability --only exhaustion,stalled_bodies` and bench/http_bench.ts; then set " +
      "VERIFIED_DENO (and pin the new Deno where 2.9.6 is pinned). docs/load.md, " +
      '"No public API keeps the budgets", says why the call is there.',
  );
});

Deno.test("serve_connection: the self-check finds the per-connection server on this Deno", () => {
  assert.equal(serveOnConnectionProblem(), null);
});

Deno.test("cueport serve on a Deno without the per-connection server: one line naming the Deno version, exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cueport-serve-check-" });
  try {
    // What a Deno without the internal would be: removed before Cueport's modules load.
    const preload = `${dir}/remove_internal.ts`;
    await Deno.writeTextFile(
      preload,
      "// deno-lint-ignore no-explicit-any\n" +
        "delete (Deno as any)[(Deno as any).internal].serveHttpOnConnection;\n",
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...SERVICE_FLAGS,
        "--preload",
        preload,
        new URL("../../../main.ts", import.meta.url).pathname,
        ...["serve", "--data-dir", `${dir}/data`, "--host", "127.0.0.1", "--mdns", "off"],
        ...["--http-port", "0", "--ws-port", "0", "--osc-port", "0", "--osc-query-port", "0"],
        ...["--legacy-http-port", "off", "--legacy-ws-port", "off", "--output", "none"],
      ],
      stdout: "piped",
      stderr: "piped",
      env: { RUST_BACKTRACE: "0" },
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, stderr);
    assert.equal(new TextDecoder().decode(out.stdout), "", "no ready line");
    const lines = stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, `one line, no stack:\n${stderr}`);
    assert.match(lines[0]!, new RegExp(`^cueport: This Deno \\(${Deno.version.deno}\\) `));
    assert.match(lines[0]!, /serveHttpOnConnection/);
    assert.match(lines[0]!, new RegExp(`Deno ${VERIFIED_DENO}`));
    assert.doesNotMatch(lines[0]!, /port 0|cannot be bound/, "not told as a port to change");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
