/**
 * The bundled player alone, started with the command line the service uses
 * (`bundledPlayerCommand`), its stdin written line by line and its stdout
 * scanned for the answers a probe waits for.
 * @module
 */
import { bundledPlayerCommand } from "../../server/player_client/spawn.ts";
import { track } from "./_children.ts";

const TAIL = 256;
/** How an answer line begins (the player writes `jsonrpc`, then `id`; a notification has none). */
const ANSWER = '{"jsonrpc":"2.0","id":';

const count = (text: string, marker: string) => text.split(marker).length - 1;

/** A running player process. */
export class PlayerProcess {
  /** Resolves with the exit status. */
  readonly exited: Promise<Deno.CommandStatus>;
  /** Answers with `-32603` (internal error) seen. */
  internalErrors = 0;
  /** The first few of them, cut short. */
  readonly internalErrorSamples: string[] = [];
  /**
   * The answers it wrote (`{"jsonrpc":"2.0","id":`, how it writes an answer, an error
   * included; a notification has no `id`): each says a line of input was received.
   */
  answers = 0;
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #tail = "";
  #stderr = "";
  #isRunning = true;
  #watches = new Map<string, () => void>();

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.exited = child.status.then((status) => {
      this.#isRunning = false;
      for (const wake of this.#watches.values()) wake();
      return status;
    });
    void this.#read(child.stdout);
    void (async () => {
      for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
        this.#stderr = (this.#stderr + text).slice(-4096);
      }
    })().catch(() => {});
  }

  /** Starts the player on `dataDir` with the settings' defaults (no other flag). */
  static spawn(dataDir: string): PlayerProcess {
    const [program, ...args] = bundledPlayerCommand({ dataDir });
    const child = new Deno.Command(program!, {
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { RUST_BACKTRACE: "0" },
    }).spawn();
    track(child);
    return new PlayerProcess(child);
  }

  /** The process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Whether it has not exited. */
  get isRunning(): boolean {
    return this.#isRunning;
  }

  /** The last 4 KiB of its stderr. */
  stderrTail(): string {
    return this.#stderr;
  }

  /** Writes bytes to stdin; false if the pipe is gone. */
  async write(bytes: Uint8Array): Promise<boolean> {
    try {
      await this.#writer.write(bytes);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Writes a request with a string id and waits for the answer with that id;
   * false if none came within `timeoutMs` (or the player exited).
   */
  async request(method: string, id: string, timeoutMs: number): Promise<boolean> {
    const marker = `"id":${JSON.stringify(id)}`;
    let isAnswered = false;
    const answered = new Promise<void>((resolve) => {
      this.#watches.set(marker, () => {
        isAnswered = this.#isRunning;
        resolve();
      });
    });
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params: {} }) + "\n";
    if (!(await this.write(new TextEncoder().encode(line)))) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([answered, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    this.#watches.delete(marker);
    return isAnswered;
  }

  /** Kills it (SIGKILL) and waits for the exit. */
  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // gone already
    }
    await this.exited;
    await this.#writer.close().catch(() => {});
  }

  async #read(stdout: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const text of stdout.pipeThrough(new TextDecoderStream())) {
        const window = this.#tail + text;
        const found = window.split('"code":-32603').length - 1 -
          (this.#tail.split('"code":-32603').length - 1);
        this.internalErrors += found;
        this.answers += count(window, ANSWER) - count(this.#tail, ANSWER);
        if (found > 0 && this.internalErrorSamples.length < 3) {
          const at = window.lastIndexOf('"code":-32603');
          this.internalErrorSamples.push(window.slice(at, at + 160).split("\n")[0]!);
        }
        for (const [marker, wake] of this.#watches) if (window.includes(marker)) wake();
        this.#tail = window.slice(-TAIL);
      }
    } catch {
      // the pipe ends with the process
    }
  }
}
