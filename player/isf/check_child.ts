/**
 * An ISF checker process: the player's own program with the `isf-check`
 * subcommand (`main.ts`), which answers checks one at a time; `checker_pool.ts`
 * keeps it between checks and ends it (so that all it took of memory goes back to
 * the system) after a check cut short, past a heap ceiling, after a number of
 * checks, or when idle. Under `deno run` it gets
 * no permissions at all and V8's heap limit (`--max-old-space-size`) at twice
 * ISF_CHECK_HEAP_MB; the compiled binary cannot be given V8 flags at its start
 * (denort reads none from DENO_V8_FLAGS: deno's cli/rt/run.rs), so there the
 * check's own look at its heap (`check_stdio.ts`) is the ceiling.
 * @module
 */
import { fileURLToPath } from "node:url";
import { ISF_CHECK_HEAP_MB } from "./bounds.ts";
import { LineReader } from "../../protocol/transport.ts";
import { MAX_REQUEST_LINE_BYTES } from "../request_transport.ts";

/**
 * The longest line either end of the checker's pipe reads, bytes: a request carries the code
 * and vertex code of one request the player read (at most MAX_REQUEST_LINE_BYTES together, JSON
 * encoding them no longer than it came) or a source made from them (a compile); an answer is far
 * shorter. A longer line is refused as it arrives, never buffered.
 */
export const ISF_CHECK_LINE_BYTES = 2 * MAX_REQUEST_LINE_BYTES;

/** The exit code of a checker that read a request line over ISF_CHECK_LINE_BYTES (`check_stdio.ts`). */
export const TOO_LONG_CODE = 76;

/** The command line of the player's checker: this executable, or `deno run main.ts`. */
export function checkerCommand(): string[] {
  if (Deno.build.standalone) return [Deno.execPath(), "isf-check"];
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-prompt",
    `--v8-flags=--max-old-space-size=${2 * ISF_CHECK_HEAP_MB}`,
    "--config",
    fileURLToPath(new URL("../../deno.json", import.meta.url)),
    fileURLToPath(new URL("../../main.ts", import.meta.url)),
    "isf-check",
  ];
}

/**
 * The variables of the player's environment its checker is given, when set and the player may
 * read them: where `deno run` finds its cache (without them it finds it from the user's home,
 * and the compiled binary needs none); nothing else of the player's environment (its secrets,
 * its settings) reaches the check.
 */
export const CHECKER_ENV: readonly string[] = [
  "HOME",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "TMPDIR",
  "USERPROFILE",
  "LOCALAPPDATA",
  "SystemRoot",
];

/** The variables the checker's environment always has. */
export const CHECKER_ENV_SET: Readonly<Record<string, string>> = {
  RUST_BACKTRACE: "0",
  NO_COLOR: "1",
  DENO_NO_UPDATE_CHECK: "1",
};

/** The checker's whole environment: CHECKER_ENV's variables of the player's, and CHECKER_ENV_SET. */
export function checkerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of CHECKER_ENV) {
    // The player may read only some variables (`--allow-env=...`): the others are not passed.
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") continue;
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...CHECKER_ENV_SET };
}

/** A started checker (or compiler) process, and the writer of its stdin. */
export interface CheckerSpawn {
  readonly child: Deno.ChildProcess;
  readonly writer: WritableStreamDefaultWriter<Uint8Array>;
}

/**
 * Starts `command` (program, then its arguments) as the player's checker or GLSL compiler: lines
 * in on stdin, lines out on stdout, `stderr` piped or dropped, and no environment but
 * `checkerEnv()`'s.
 */
export function spawnChecker(command: readonly string[], stderr: "piped" | "null"): CheckerSpawn {
  const [program, ...args] = command;
  const child = new Deno.Command(program!, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr,
    clearEnv: true,
    env: checkerEnv(),
  }).spawn();
  return { child, writer: child.stdin.getWriter() };
}

/** A message of the checker: `check_stdio.ts` writes them. */
export type CheckerMessage =
  | { progress: number }
  | { result: unknown; heapMb: number; retire?: true }
  | { overCeiling: true };

/** How a checker process ended, once it has. */
export interface CheckerEnd {
  /** Whether V8 ended it for its heap limit, or it ended itself past its ceiling. */
  readonly isOutOfMemory: boolean;
  /** The last of what it wrote on stderr. */
  readonly stderr: string;
}

/** How much of the checker's stderr is kept (the end says why it ended). */
const STDERR_KEPT = 4096;

/** A checker process: `send` requests one at a time, hear each one's messages, `end` it. */
export class CheckerProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #onMessage: (message: CheckerMessage) => void = () => {};
  /** Resolves once the process ended and its pipes are read to their end. */
  readonly ended: Promise<CheckerEnd>;
  /** Whether it ended, or was ended (it takes no more requests). */
  isEnded = false;
  /** Requests sent to it so far. */
  checks = 0;

  /** Why it was ended for what it wrote (a line too long), said after its stderr. */
  #refusal = "";

  /** Starts `command` (program, then its arguments); `maxLineBytes` bounds its lines. */
  constructor(command: readonly string[], { maxLineBytes = ISF_CHECK_LINE_BYTES } = {}) {
    ({ child: this.#child, writer: this.#writer } = spawnChecker(command, "piped"));
    const read = this.#readMessages(maxLineBytes);
    this.ended = Promise.all([read, tail(this.#child.stderr), this.#child.status])
      .then(([, stderr, status]) => {
        this.isEnded = true;
        return {
          isOutOfMemory: status.code === OVER_CEILING_CODE ||
            /out of memory|heap limit/i.test(stderr),
          stderr: this.#refusal ? `${stderr}\n${this.#refusal}` : stderr,
        };
      });
  }

  /** Sends one request; `onMessage` hears each message of its check (and no earlier one's). */
  async send(request: unknown, onMessage: (message: CheckerMessage) => void): Promise<void> {
    this.#onMessage = onMessage;
    this.checks++;
    try {
      await this.#writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
    } catch {
      // It ended before reading: `ended` says why.
    }
  }

  /** Whether it keeps the player running: while a check waits on it, not while it is idle. */
  set isReferenced(isReferenced: boolean) {
    if (isReferenced) this.#child.ref();
    else this.#child.unref();
  }

  /** Idle between checks: it hears no earlier check's messages and keeps no player alive. */
  rest(): void {
    this.#onMessage = () => {};
    this.isReferenced = false;
  }

  /** Ends the process (done, or given up on). */
  end(): void {
    this.isEnded = true;
    this.#onMessage = () => {};
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already ended.
    }
  }

  /** Its messages, a line each, by the one line reader: a line too long ends it. */
  async #readMessages(maxLineBytes: number): Promise<void> {
    const reader = new LineReader(
      (line) => {
        const message = parsed(line);
        if (message) this.#onMessage(message);
      },
      () => {
        this.#refusal = `it wrote a line too long: over ${maxLineBytes} bytes`;
        this.end();
      },
      { maxLineBytes },
    );
    await reader.readAll(this.#child.stdout);
  }
}

/** The exit code of a checker that ended itself past its ceiling (`check_stdio.ts`). */
export const OVER_CEILING_CODE = 75;

/** A line of the checker's stdout as a message, or null for any other line (not its own). */
function parsed(line: string): CheckerMessage | null {
  try {
    const value = JSON.parse(line);
    return typeof value === "object" && value !== null ? value as CheckerMessage : null;
  } catch {
    return null;
  }
}

async function tail(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    text = (text + chunk).slice(-STDERR_KEPT);
  }
  return text;
}
