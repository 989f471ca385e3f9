import assert from "node:assert/strict";
import { runMain, startServiceProcess } from "../../tools/testing/service_process.ts";

/** Runs an operator command with the binary's permissions; its exit code and output. */
async function cli(...args: string[]) {
  const { code, stdout, stderr } = await runMain(args);
  return { code, text: stdout + stderr };
}

Deno.test("operator commands ask the service that holds the data dir, never whatever answers on a port", async () => {
  // Another program on a port, named by the lock file a stopped Cueport left behind.
  let asked = 0;
  const decoy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    asked++;
    return Response.json({ status: "ok", ready: true, devices: [] });
  });
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-stale-" });
  try {
    const port = decoy.addr.port;
    await Deno.writeTextFile(
      `${dataDir}/cueport.lock`,
      JSON.stringify({ pid: 999999, startedAt: "", version: "0.1.0", ports: { http: port } }),
    );
    for (const command of ["devices", "status", "pair"]) {
      const run = await cli(command, "--data-dir", dataDir);
      assert.equal(run.code, 1, run.text);
      assert.match(
        run.text,
        new RegExp(`No Cueport service runs with the data dir "${dataDir}": start it, or name`),
      );
      assert.equal(run.text.trim().split("\n").length, 1, run.text);
    }
    assert.equal(asked, 0, "the program on the lock file's port was never asked");
  } finally {
    await decoy.shutdown();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("operator commands find a running service through its data dir alone", async () => {
  const svc = await startServiceProcess();
  try {
    const devices = await cli("devices", "--data-dir", svc.dataDir);
    assert.equal(devices.code, 0, devices.text);
    assert.match(devices.text, /No paired devices/);
    const status = await cli("status", "--data-dir", svc.dataDir, "--json");
    assert.equal(status.code, 0, status.text);
    assert.equal(JSON.parse(status.text).ports.http, svc.ready.ports.http);
  } finally {
    assert.equal(await svc.stop(), 0);
  }
});
