/**
 * The probe a rig group's import asks of its rig's player (`Core.probeMedia`, `media.probe`,
 * player protocol 1.18), with an in-process player: a file the player refuses is the service's
 * error of the code a rig alone answers; a good one is measured; a player before 1.18 (it answers
 * -32601) probes nothing, so the import goes on as it did then.
 */
import assert from "node:assert/strict";
import { Core, CueportError } from "../../../server/core/mod.ts";
import { PlayerSupervisor } from "../../../server/player_client/mod.ts";
import {
  Method,
  type MethodName,
  type MethodParams,
  type MethodResult,
} from "../../../protocol/methods.ts";
import { RpcError, RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { inProcessLauncher } from "../../../tools/testing/in_process.ts";
import { jpeg } from "../../../tools/testing/media.ts";

/** A player of protocol 1.17: it does not know `media.probe`. */
class Player117 extends PlayerSupervisor {
  override request<M extends MethodName>(
    method: M,
    params: MethodParams<M>,
    options?: Parameters<PlayerSupervisor["request"]>[2],
  ): Promise<MethodResult<M>> {
    if (method === Method.MEDIA_PROBE) {
      return Promise.reject(new RpcError(RpcErrorCode.METHOD_NOT_FOUND, "Unknown method"));
    }
    return super.request(method, params, options);
  }
}

/** Runs `fn` with a core on an in-process player (of 1.17 when `isOld`), ready. */
async function withCore(isOld: boolean, fn: (core: Core, dataDir: string) => Promise<void>) {
  const dataDir = await fixtureDataDir();
  const launcher = inProcessLauncher(dataDir);
  const Supervisor = isOld ? Player117 : PlayerSupervisor;
  const supervisor = new Supervisor(launcher, { backoff: { initialMs: 1 } });
  const core = new Core(supervisor, { coalesceMs: 0 });
  supervisor.start();
  try {
    assert.ok(await supervisor.waitReady(120_000));
    await fn(core, dataDir);
  } finally {
    await supervisor.stop();
    core.close();
    await Deno.remove(dataDir, { recursive: true });
  }
}

/** The code of the service's error `promise` rejects with. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => null, (e) => e);
  assert.ok(error instanceof CueportError, String(error));
  return error.code;
}

Deno.test("Core.probeMedia() refuses junk with the code of an import alone, measures a good file", async () => {
  await withCore(false, async (core, dataDir) => {
    await Deno.writeTextFile(`${dataDir}/junk.png`, "not an image\n".repeat(20));
    await Deno.writeFile(`${dataDir}/still.jpg`, jpeg(16, 9));
    assert.equal(await codeOf(core.probeMedia(`${dataDir}/junk.png`)), "UNSUPPORTED_MEDIA");
    const imported = core.edits.run(
      { projectID: "show", name: "file.import", params: { path: `${dataDir}/junk.png` } },
      { isLocal: true },
    );
    assert.equal(await codeOf(imported), "UNSUPPORTED_MEDIA", "as the import alone");
    assert.equal(await codeOf(core.probeMedia(`${dataDir}/none.jpg`)), "NOT_FOUND");
    const still = await core.probeMedia(`${dataDir}/still.jpg`);
    assert.deepEqual([still?.kind, still?.width, still?.height], ["image", 16, 9]);
  });
});

Deno.test("Core.probeMedia() of a player before 1.18 probes nothing (null)", async () => {
  await withCore(true, async (core, dataDir) => {
    await Deno.writeTextFile(`${dataDir}/junk.png`, "not an image\n".repeat(20));
    assert.equal(await core.probeMedia(`${dataDir}/junk.png`), null);
  });
});
