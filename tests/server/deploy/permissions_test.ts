import assert from "node:assert/strict";
import { untilPlayerReady } from "../../../tools/reliability/_service.ts";
import * as osc from "osc-min";
import { SERVICE_FLAGS, serviceTasks } from "../../../server/deploy/permissions.ts";
import { encodePng } from "../../../player/media/encode.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { until } from "../../../tools/testing/until.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { withMdnsPort } from "../../../tools/testing/mdns_port.ts";

const ROOT = new URL("../../../", import.meta.url);
const MAIN = new URL("main.ts", ROOT).pathname;

Deno.test("deno.json's start, test and compile tasks carry the one permission list", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const tasks = serviceTasks();
  for (const name of ["start", "test", "compile"] as const) {
    assert.equal(config.tasks[name], tasks[name], `deno task permissions rewrites ${name}`);
  }
  assert.ok(!SERVICE_FLAGS.includes("-A") && !SERVICE_FLAGS.some((f) => f.includes("ffi")));
  assert.ok(SERVICE_FLAGS.every((f) => f !== "--allow-all" && f !== "--allow-env"));
});

/** A unix datagram socket standing in for systemd's notify socket. */
async function notifySocket() {
  const dir = await Deno.makeTempDir({ prefix: "cueport-notify-test-" });
  const path = `${dir}/notify`;
  const conn = Deno.listenDatagram({ transport: "unixpacket", path });
  const received: string[] = [];
  const reading = (async () => {
    try {
      for await (const [data] of conn) received.push(new TextDecoder().decode(data));
    } catch { /* closed */ }
  })();
  return {
    path,
    received,
    async close() {
      conn.close();
      await reading;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * The nice value of each worker thread, by its number (Deno names them `worker-N` in the order
 * they were made; `ps`: Deno reads other processes' /proc only with -A).
 */
async function workerNiceness(pid: number): Promise<Map<number, number>> {
  const out = await new Deno.Command("ps", {
    args: ["-L", "-o", "nice=,comm=", "-p", String(pid)],
  }).output();
  const workers = new Map<number, number>();
  for (const line of new TextDecoder().decode(out.stdout).trim().split("\n")) {
    const [nice, name] = line.trim().split(/\s+/);
    const n = /^worker-(\d+)$/.exec(name ?? "")?.[1];
    if (n) workers.set(Number(n), Number(nice));
  }
  return workers;
}

async function runMain(args: string[]): Promise<{ code: number; out: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVICE_FLAGS, MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { RUST_BACKTRACE: "0" },
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, out: text(output.stdout) + text(output.stderr) };
}

Deno.test({
  name: "the service runs every feature with exactly the embedded permissions",
  ignore: Deno.build.os !== "linux" || needs("ffmpeg", "ps").ignore,
  // Its service advertises (mDNS is a feature too): it holds UDP 5353 as the discovery tests do.
  fn: () => withMdnsPort(everyFeature),
});

async function everyFeature(): Promise<void> {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-perm-" });
  const work = await Deno.makeTempDir({ prefix: "cueport-perm-files-" });
  const notify = await notifySocket();
  // Settings from a config file and from the environment: both must be readable.
  const configFile = `${work}/config.json`;
  await Deno.writeTextFile(
    configFile,
    JSON.stringify({ logFormat: "json", oscAllow: ["127.0.0.1"], host: ["127.0.0.1"] }),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...SERVICE_FLAGS,
      MAIN,
      ...["--config", configFile, "--data-dir", dataDir],
      ...["--http-port", "0", "--ws-port", "0", "--osc-port", "0", "--osc-query-port", "0"],
    ],
    stdout: "piped",
    stderr: "piped",
    env: {
      RUST_BACKTRACE: "0",
      CUEPORT_LOG_LEVEL: "info",
      NOTIFY_SOCKET: notify.path,
      WATCHDOG_USEC: "200000",
    },
  }).spawn();
  let stderr = "";
  const errDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`The service exited before ready: ${stderr}`);
      out += value;
    }
    const ready = JSON.parse(out.slice(0, out.indexOf("\n")));
    // At most 15 s for the player, then the line says it is not ready yet (a busy machine).
    if (!ready.playerReady) await untilPlayerReady(ready.ports.http, () => true);
    const base = `http://127.0.0.1:${ready.ports.http}`;
    const getJson = async (path: string) => {
      const res = await fetch(base + path);
      return { status: res.status, body: await res.json() };
    };

    // systemd readiness, then the watchdog's pings (WATCHDOG_USEC set).
    await until("READY=1", () => notify.received.some((m) => m.startsWith("READY=1")));
    await until("WATCHDOG=1", () => notify.received.includes("WATCHDOG=1"));

    // HTTP actions; the read model; the host check (hostname, network interfaces).
    const action = await fetch(`${base}/api/v1/action`, {
      method: "POST",
      body: JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] }),
    });
    assert.equal(action.status, 200, await action.text());
    assert.equal((await getJson("/api/v1/active")).body.playstate.controls.A, 0.5);

    // WebSocket.
    const socket = await TestSocket.open(`ws://127.0.0.1:${ready.ports.ws}/v1`);
    try {
      assert.equal((await socket.auth()).type, "response");
      const state = await socket.request({ type: "query", query: "active" });
      assert.equal(state.type, "response", JSON.stringify(state));
    } finally {
      await socket.close();
    }

    // OSC (an allowed sender) and OSCQuery.
    const peer = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
    try {
      const view = osc.toBuffer({
        address: "/action/SET_CONTROL",
        args: [{ type: "string", value: "B" }, { type: "float", value: 0.25 }],
      });
      await peer.send(
        new Uint8Array(view.buffer as ArrayBuffer, view.byteOffset, view.byteLength),
        {
          transport: "udp",
          hostname: "127.0.0.1",
          port: ready.ports.osc,
        },
      );
      await until(
        "the OSC action",
        async () => (await getJson("/api/v1/active")).body.playstate.controls.B === 0.25,
      );
    } finally {
      peer.close();
    }
    const namespace = await fetch(`http://127.0.0.1:${ready.ports.oscQuery}/`);
    assert.equal(namespace.status, 200);
    assert.ok((await namespace.json()).CONTENTS);

    // Pairing a remote device: signed tokens, files in the data dir.
    const code = (await (await fetch(`${base}/api/v1/pair/code`, { method: "POST" })).json()).otp;
    const paired = await remoteRequest(ready.ports.http, "POST", "/api/v1/pair", {
      body: { otp: code, deviceName: "perm test" },
    });
    assert.equal(paired.status, 200, JSON.stringify(paired.body));

    // Media: a file imported from a path, its thumbnail on a worker that renices itself,
    // a video frame through ffmpeg, a waveform, the camera test pattern.
    const png = `${work}/square.png`;
    await Deno.writeFile(png, encodePng(2, 2, new Uint8Array(16).fill(200)));
    const video = `${work}/clip.mp4`;
    const made = await new Deno.Command("ffmpeg", {
      args: ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=10:duration=1", video],
    }).output();
    assert.ok(made.success, "ffmpeg is installed by .ci/run");
    const ids: string[] = [];
    for (const path of [png, video]) {
      const imported = await fetch(`${base}/api/v1/edit`, {
        method: "POST",
        body: JSON.stringify({ name: "file.import", params: { path } }),
      });
      const body = await imported.json();
      assert.equal(imported.status, 200, JSON.stringify(body));
      ids.push(body.edits[0].created.fileId);
    }
    const picture = async (path: string) => {
      const res = await fetch(base + path);
      // The error body names a refused permission, if that is what failed.
      const error = res.status === 200 ? null : await res.text();
      if (error === null) await res.body?.cancel();
      return { status: res.status, origin: res.headers.get("x-cueport-origin"), error };
    };
    assert.equal((await picture(`/thumbnails/demo/${ids[0]}.jpg?size=64`)).error, null);
    assert.deepEqual(await picture(`/thumbnails/demo/${ids[1]}.jpg?size=64`), {
      status: 200,
      origin: "video-frame",
      error: null,
    });
    const project = JSON.parse(
      await Deno.readTextFile(`${dataDir}/projects/demo/project.json`),
    );
    const audio = project.files.find((f: { kind: string }) => f.kind === "audio");
    assert.equal((await picture(`/waveforms/demo/${audio.id}.png`)).error, null);
    assert.equal((await picture("/camera-thumbnails/test-pattern.jpg")).error, null);
    // The OSC port's reader is the first worker; the media worker lowered itself, not it.
    const workers = await workerNiceness(ready.pid);
    assert.equal(workers.get(1), 0, "the OSC reader keeps its priority");
    assert.equal(workers.get(Math.max(...workers.keys())), 15, "the media worker reniced itself");

    // An operator command through the same permissions.
    const status = await runMain(["status", "--data-dir", dataDir]);
    assert.equal(status.code, 0, status.out);
    assert.match(status.out, /Player: cueport-player/);
  } finally {
    child.kill("SIGTERM");
    const { code } = await child.status;
    await reader.cancel().catch(() => {});
    await errDone;
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await Deno.remove(work, { recursive: true }).catch(() => {});
    assert.equal(code, 0, stderr);
  }
  await until("STOPPING=1", () => notify.received.includes("STOPPING=1"));
  await notify.close();
  assert.doesNotMatch(stderr, /Permission refused|NotCapable|Requires .* access/);
  // The log is one JSON object a line (logFormat from the config file).
  for (const line of stderr.trim().split("\n")) {
    const entry = JSON.parse(line);
    assert.deepEqual(Object.keys(entry), ["time", "level", "message"]);
  }
}

Deno.test("a permission the build lacks is one log line naming the flag", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-perm-" });
  try {
    const narrower = SERVICE_FLAGS.map((f) =>
      f.startsWith("--allow-env=") ? "--allow-env=HOME" : f
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...narrower, MAIN, "--data-dir", dataDir, "--http-port", "0"],
      stdout: "piped",
      stderr: "piped",
      env: { RUST_BACKTRACE: "0", NO_COLOR: "1" },
    }).output();
    const stderr = new TextDecoder().decode(output.stderr).trim();
    assert.equal(output.code, 1);
    const lines = stderr.split("\n");
    assert.equal(lines.length, 1, stderr);
    assert.match(
      lines[0]!,
      /ERROR Permission refused: env access to "\w+" is not granted by --allow-env/,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
