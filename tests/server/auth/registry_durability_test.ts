import assert from "node:assert/strict";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";

Deno.test("40 pairings and 40 local approvals at once, three rounds with restarts: every token still works", async () => {
  let svc = await startTestService({ localhostAuthExempt: false });
  const dataDir = svc.dataDir;
  const tokens: string[] = [];
  try {
    for (let round = 0; round < 3; round++) {
      const url = `ws://127.0.0.1:${svc.service.ports.ws}/v1`;
      const operator = {
        authorization: `Bearer ${
          (await Deno.readTextFile(`${dataDir}/auth/operator-token`)).trim()
        }`,
      };
      const codes = await Promise.all(
        Array.from(
          { length: 40 },
          () => svc.post("/api/v1/pair/code", {}, { headers: operator }).then((r) => r.body.otp),
        ),
      );
      const sockets = await Promise.all(Array.from({ length: 40 }, () => TestSocket.open(url)));
      const [paired, approved] = await Promise.all([
        Promise.all(
          codes.map((otp, i) =>
            remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
              body: { otp, deviceName: `Phone ${round}-${i}` },
            })
          ),
        ),
        Promise.all(sockets.map(async (ws) => {
          await ws.take();
          const answer = await ws.request({ type: "auth", payload: { deviceName: "Script" } });
          await ws.close();
          return answer;
        })),
      ]);
      for (const p of paired) tokens.push(p.body.token);
      for (const a of approved) tokens.push(a.data.token);
      await svc.stop({ keepData: true });
      svc = await startTestService({ localhostAuthExempt: false }, { dataDir });
    }
    assert.equal(new Set(tokens).size, 240);
    assert.ok(tokens.every((t) => typeof t === "string"));
    // Checked from this machine (localhostAuthExempt is off, so the token is checked too),
    // where no rate limit applies.
    const answers = await Promise.all(
      tokens.map((token) =>
        svc.get("/api/v1/projects", { headers: { authorization: `Bearer ${token}` } })
      ),
    );
    const lost = answers.filter((a) => a.status !== 200).map((a) => a.body.error?.message);
    assert.deepEqual(lost, [], "no token was lost");
  } finally {
    await svc.stop();
  }
});
