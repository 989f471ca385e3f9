import assert from "node:assert/strict";
import { SERVICE_FLAGS } from "../../tools/testing/service_process.ts";

const SMOKE = new URL("../../tools/smoke.ts", import.meta.url).pathname;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const SERVICE = [Deno.execPath(), "run", ...SERVICE_FLAGS, MAIN];

async function smoke(command: string[]) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-run",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      SMOKE,
      "--",
      ...command,
    ],
    env: { RUST_BACKTRACE: "0" },
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, out: decode(stdout), err: decode(stderr) };
}

Deno.test("tools/smoke.ts passes on a working service: ready, player, action read back, clean stop", async () => {
  const { code, out, err } = await smoke(SERVICE);
  assert.equal(code, 0, err);
  const checks = out.trim().split("\n").map((line) => line.split(":")[0]);
  const expected = ["ok ready line", "ok player ready", "ok action", "ok read back"];
  if (Deno.build.os !== "windows") expected.push("ok stopped");
  assert.deepEqual(checks, expected);
});

Deno.test("tools/smoke.ts fails, saying why, on a command that does not start the service", async () => {
  const { code, err } = await smoke([Deno.execPath(), "eval", "Deno.exit(3)"]);
  assert.equal(code, 1);
  assert.match(err, /exited before printing/);
});
