/**
 * Starts the real service as a subprocess with `deno run` and the same
 * permission and V8 flags the compiled binary embeds, on free ports and a temp
 * data dir, and reads its ready line.
 */

/** The runtime flags of `deno task start` (permissions, V8 flags): those the compiled binary embeds. */
export { SERVICE_FLAGS } from "../reliability/_service.ts";
import { SERVICE_FLAGS, untilPlayerReady } from "../reliability/_service.ts";

/** The ready line. */
export interface ReadyLine {
  event: "ready";
  ports: { http: number; ws: number; osc: number; midi: number | null };
  pid: number;
  dataDir: string;
  playerReady: boolean;
  /** Files of the data dir found damaged, when there are any. */
  problems?: number;
}

/** A running service process. */
export interface ServiceProcess {
  ready: ReadyLine;
  child: Deno.ChildProcess;
  dataDir: string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** GET a path on the HTTP port, JSON-decoded. */
  get(path: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** SIGTERM, wait, remove the data dir; returns the exit code. */
  stop(): Promise<number>;
}

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/**
 * Starts `main.ts` with `args` plus free ports and a temp data dir, and returns once its player is
 * ready too (a ready line with `playerReady: false`, a slow first start on a busy machine, is
 * followed by a wait for `/health` to say so: `untilPlayerReady`);
 * `openFilesLimit` runs it under that `ulimit -n`; `dataDir` starts it on that dir (removed by `stop`).
 */
export async function startServiceProcess(
  args: string[] = [],
  options: { openFilesLimit?: number; dataDir?: string } = {},
): Promise<ServiceProcess> {
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "cueport-svc-" });
  const limit = options.openFilesLimit;
  const [program, ...prefix] = limit === undefined
    ? [Deno.execPath()]
    : ["bash", "-c", `ulimit -n ${limit} && exec "$@"`, "bash", Deno.execPath()];
  const child = new Deno.Command(program!, {
    args: [
      ...prefix,
      "run",
      ...SERVICE_FLAGS,
      MAIN,
      "--data-dir",
      dataDir,
      "--host",
      "127.0.0.1",
      "--http-port",
      "0",
      "--ws-port",
      "0",
      "--osc-port",
      "0",
      "--osc-query-port",
      "0",
      "--legacy-http-port",
      "0",
      "--legacy-ws-port",
      "0",
      // Off unless a test asks: parallel services never race for 5004/5005.
      "--midi-port",
      "off",
      // Only the discovery tests advertise: another advert on the loopback would rename theirs.
      "--mdns",
      "off",
      // Only the output's own tests start a browser (tests/player/output/).
      "--output",
      "none",
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
    env: { RUST_BACKTRACE: "0" },
  }).spawn();
  let errText = "";
  const errDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) errText += chunk;
  })();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`Service exited before ready: ${errText}`);
    out += value;
  }
  const ready = JSON.parse(out.slice(0, out.indexOf("\n"))) as ReadyLine;
  const base = `http://127.0.0.1:${ready.ports.http}`;
  if (!ready.playerReady) {
    let hasExited = false;
    void child.status.then(() => hasExited = true);
    await untilPlayerReady(ready.ports.http, () => !hasExited);
  }
  return {
    ready,
    child,
    dataDir,
    stderr: () => errText,
    async get(path) {
      const res = await fetch(base + path);
      return { status: res.status, body: await res.json() };
    },
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      const { code } = await child.status;
      await reader.cancel().catch(() => {});
      await errDone.catch(() => {});
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      return code;
    },
  };
}

/** Runs `main.ts` with the binary's permissions until it exits: its exit code and output. */
export async function runMain(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVICE_FLAGS, MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { RUST_BACKTRACE: "" },
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}
