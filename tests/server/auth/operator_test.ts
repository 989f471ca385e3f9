import assert from "node:assert/strict";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { SERVICE_FLAGS } from "../../../tools/testing/service_process.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

async function cli(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVICE_FLAGS, MAIN, ...args],
    stdout: "piped",
    env: { CUEPORT_DATA_DIR: "/nonexistent" },
  }).output();
  return { code: out.code, text: new TextDecoder().decode(out.stdout) };
}

Deno.test("localhostAuthExempt off: the operator commands still work with the credential in the data dir", async () => {
  const svc = await startTestService({ localhostAuthExempt: false });
  try {
    const file = `${svc.dataDir}/auth/operator-token`;
    if (Deno.build.os !== "windows") assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    // The port comes from the data dir too: the service wrote it there.
    const pair = await cli("pair", "--data-dir", svc.dataDir);
    assert.equal(pair.code, 0, pair.text);
    assert.match(pair.text, /Pairing code: \d{6}/);
    const devices = await cli("devices", "--data-dir", svc.dataDir);
    assert.deepEqual([devices.code, devices.text.trim()], [0, "No paired devices"]);
    // Without the credential the operator is a local client like any other.
    const port = String(svc.service.ports.http);
    const without = await cli("devices", "--http-port", port);
    assert.equal(without.code, 1);
    assert.match(without.text, /Authentication required/);
    const token = (await Deno.readTextFile(file)).trim();
    // One hex digit changed (never to itself: a one-in-16 pass of a wrong credential).
    const changed = `${token.slice(0, -1)}${token.endsWith("0") ? "1" : "0"}`;
    const wrong = await svc.get("/api/v1/projects", {
      headers: { authorization: `Bearer ${changed}` },
    });
    assert.equal(wrong.status, 401);
  } finally {
    await svc.stop();
  }
});

Deno.test("the operator credential is refused from another machine", async () => {
  const svc = await startTestService();
  try {
    const token = (await Deno.readTextFile(`${svc.dataDir}/auth/operator-token`)).trim();
    const remote = await remoteRequest(svc.service.ports.http, "GET", "/api/v1/projects", {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(remote.status, 401);
  } finally {
    await svc.stop();
  }
});
