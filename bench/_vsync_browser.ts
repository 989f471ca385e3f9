/**
 * The bench's way to each rig's output page, without a production surface: the rig is started
 * with `--output-browser` set to a wrapper script that runs the real browser with the player's
 * arguments plus a DevTools port (`--remote-debugging-port`, beside the player's pipe), on the
 * rig's own loopback (each rig has a network namespace: every rig's browser may take the same
 * port). `_vsync_collector.ts`, started in the rig's namespace, reads the page's frames there.
 * The player starts its browser as another account when it runs as root (`cueport-output`): the
 * wrapper's folder and file are readable and runnable by every account.
 * @module
 */

/** The DevTools port every rig's browser opens in its namespace. */
export const DEVTOOLS_PORT = 9222;

/** The collector's source, run in a rig's namespace. */
const COLLECTOR = new URL("./_vsync_collector.ts", import.meta.url).pathname;

/** A wrapper of `browser` adding the DevTools port: its path, and how to remove it. */
export async function debugBrowser(
  browser: string,
): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-bench-browser-" });
  await Deno.chmod(dir, 0o755);
  const path = `${dir}/browser`;
  const quoted = `'${browser.replaceAll("'", `'\\''`)}'`;
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\nexec ${quoted} --remote-debugging-port=${DEVTOOLS_PORT} "$@"\n`,
  );
  await Deno.chmod(path, 0o755);
  return { path, remove: () => Deno.remove(dir, { recursive: true }) };
}

/**
 * One page's frames as its collector wrote them, in drawing order: `[at, position, clock, frameMs]`
 * each (`_vsync_collector.ts`).
 */
export class FrameCollector {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #done: Promise<void>;
  /** The frames read so far. */
  readonly frames: [number, number, number, number][] = [];
  /** The page's time base against the machine's clock at each read, ms (`_vsync_collector.ts`). */
  readonly skewMs: number[] = [];

  /** Starts a collector in network namespace `ns`, of Clip `clipId`'s position. */
  constructor(ns: string, clipId: string) {
    this.#child = new Deno.Command("ip", {
      args: [
        "netns",
        "exec",
        ns,
        Deno.execPath(),
        "run",
        "--allow-net",
        COLLECTOR,
        `${DEVTOOLS_PORT}`,
        clipId,
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#done = this.#read();
  }

  /** Ends the collector (its stdin closed, then killed) once it wrote what it had. */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    const ended = await Promise.race([
      this.#child.status.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), 2000)),
    ]);
    if (!ended) this.#child.kill("SIGKILL");
    await this.#done;
  }

  async #read(): Promise<void> {
    let text = "";
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      const lines = text.split("\n");
      text = lines.pop()!;
      for (const line of lines) {
        const { skewMs, frames } = JSON.parse(line);
        this.skewMs.push(skewMs);
        this.frames.push(...frames);
      }
    }
  }
}
