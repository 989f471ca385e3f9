/** Starting Cueport as its own process for the benchmarks, and reading its ready line. */

const PERMS = [
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
];

/** The first line a process prints. */
export async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`exited before printing: ${text}`);
    text += value;
  }
  reader.releaseLock();
  return text.slice(0, text.indexOf("\n"));
}

/** A running Cueport on loopback with free ports. */
export interface BenchService {
  ports: { http: number; ws: number; osc: number };
  stop(): Promise<void>;
}

/** Starts `main.ts` on `dataDir`. */
export async function startCueport(dataDir: string): Promise<BenchService> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...PERMS,
      new URL("../main.ts", import.meta.url).pathname,
      ...["--data-dir", dataDir, "--host", "127.0.0.1", "--log-level", "warn"],
      ...["--http-port", "0", "--ws-port", "0", "--osc-port", "0"],
    ],
    stdout: "piped",
    env: { RUST_BACKTRACE: "0" },
  }).spawn();
  const ready = JSON.parse(await firstLine(child.stdout));
  return {
    ports: ready.ports,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
