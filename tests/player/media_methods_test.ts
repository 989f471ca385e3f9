import assert from "node:assert/strict";
import { memoryTransportPair } from "../../protocol/transport.ts";
import type { RpcMessage } from "../../protocol/jsonrpc.ts";
import { startPlayer, VirtualClock } from "../../player/mod.ts";
import { drawTestPattern, TEST_PATTERN_SIZE } from "../../player/camera_frames.ts";
import { fixtureDataDir } from "../../tools/testing/fixture.ts";

/** A player on a fixture data dir (plus the demo's media when `demo`), past the handshake. */
async function player(options: { demo?: boolean; ffmpeg?: string | null } = {}) {
  const dataDir = options.demo ? await Deno.makeTempDir() : await fixtureDataDir();
  const [serverSide, playerSide] = memoryTransportPair();
  const clock = new VirtualClock();
  const running = await startPlayer({
    dataDir,
    transport: playerSide,
    clock,
    positionIntervalMs: 0,
    ffmpeg: options.ffmpeg ?? null,
  });
  let next = 1;
  const waiters = new Map<number, (m: RpcMessage) => void>();
  serverSide.onmessage = (m) => {
    if ("id" in m && typeof m.id === "number") waiters.get(m.id)?.(m);
  };
  void serverSide.start();
  // deno-lint-ignore no-explicit-any
  const call = (method: string, params?: unknown): Promise<any> => {
    const id = next++;
    const { promise, resolve } = Promise.withResolvers<RpcMessage>();
    waiters.set(id, resolve);
    void serverSide.send({ jsonrpc: "2.0", id, method, params });
    return promise;
  };
  await call("initialize", { protocolVersion: "1.2" });
  const close = async () => {
    await serverSide.close();
    await running.done;
    await Deno.remove(dataDir, { recursive: true });
  };
  return { call, clock, close, dataDir, app: running.app };
}

Deno.test("media.locate gives a file's path, size and time; unknown ones are -32001", async () => {
  const p = await player({ demo: true });
  try {
    const project = p.app.snapshot().projects[0]!;
    const file = project.files[0]!;
    const found = await p.call("media.locate", { projectId: project.id, fileId: file.id });
    assert.equal(found.result.path, `${p.dataDir}/projects/${project.id}/${file.path}`);
    assert.equal(found.result.size, (await Deno.stat(found.result.path)).size);
    assert.ok(found.result.modifiedAt > 0);
    const active = await p.call("media.locate", { projectId: null, fileId: file.id });
    assert.equal(active.result.path, found.result.path, "null is the active Project");
    const noFile = await p.call("media.locate", { projectId: project.id, fileId: "nope" });
    assert.equal(noFile.error.code, -32001);
    assert.match(noFile.error.message, /File "nope" is not in Project/);
    const noProject = await p.call("media.locate", { projectId: "nope", fileId: file.id });
    assert.equal(noProject.error.code, -32001);
    await Deno.remove(found.result.path);
    const gone = await p.call("media.locate", { projectId: project.id, fileId: file.id });
    assert.match(gone.error.message, /missing from disk/);
    const bad = await p.call("media.locate", { projectId: project.id });
    assert.equal(bad.error.code, -32602);
  } finally {
    await p.close();
  }
});

Deno.test("camera.frame: the test pattern is a PNG that changes with the player's clock", async () => {
  const p = await player();
  try {
    const first = await p.call("camera.frame", { cameraId: "test-pattern" });
    const bytes = await Deno.readFile(first.result.path);
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], "a PNG");
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    assert.deepEqual([view.getUint32(16), view.getUint32(20)], [640, 360]);
    p.clock.advance(5_000);
    const second = await p.call("camera.frame", { cameraId: "test-pattern" });
    assert.notDeepEqual(await Deno.readFile(second.result.path), bytes, "the picture moved on");
    const unknown = await p.call("camera.frame", { cameraId: "video9" });
    assert.equal(unknown.error.code, -32001);
  } finally {
    await p.close();
  }
});

Deno.test("the test pattern shows the clock: the sweep and the digits move, the bars stay", () => {
  const { width } = TEST_PATTERN_SIZE;
  const at = (ms: number) => drawTestPattern(ms).rgba;
  const [a, b] = [at(0), at(5_000)];
  const topRow = (rgba: Uint8Array) => rgba.subarray(0, width * 4);
  assert.deepEqual(topRow(a), topRow(b), "the colour bars do not change");
  let changed = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) changed++;
  assert.ok(changed > 1000, `${changed} bytes changed`);
});

Deno.test("camera.frame of a device: without ffmpeg it is -32005, saying what is missing", async () => {
  const { CameraFrames } = await import("../../player/camera_frames.ts");
  const dir = await Deno.makeTempDir();
  try {
    const camera = { deviceId: "video0", label: "USB", isDefault: true };
    for (const ffmpeg of [null, "/nonexistent/ffmpeg"]) {
      const frames = new CameraFrames(dir, () => 0, ffmpeg);
      const error = await frames.capture(camera).then(() => null, (e) => e);
      assert.equal(error?.code, -32005, String(ffmpeg));
      assert.match(error.message, /needs ffmpeg/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("output.frame without an output is -32005 UNAVAILABLE, saying why", async () => {
  const p = await player();
  try {
    const answer = await p.call("output.frame", {});
    assert.equal(answer.error.code, -32005);
    assert.match(answer.error.message, /No output runs/);
  } finally {
    await p.close();
  }
});
