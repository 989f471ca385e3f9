/**
 * This process's stdin and stdout as a `BytePipe`: how the player talks to
 * the service.
 * @module
 */
import { Socket } from "node:net";
import type { BytePipe } from "../protocol/transport.ts";

/**
 * This process's stdin and stdout. Deno serves `Deno.stdin` on its blocking
 * thread pool: two thread switches per read, the largest part of the player's
 * CPU per action (measured). On Linux, a pipe or socket on stdin is therefore read
 * through a `node:net` socket, which Deno polls on its event loop like any
 * socket; anything else (a file, a terminal) through `Deno.stdin.read` into
 * one reused buffer. Writes are synchronous: the process waits while the pipe
 * is full, which only happens when the reader (the service) is busy and the
 * answer could not go out anyway.
 */
export function stdioPipe(): BytePipe {
  const input = socketReader() ?? stdinReader();
  const encoder = new TextEncoder();
  /** The text of a write, encoded into one buffer kept for the next. */
  const encoded = new Uint8Array(64 * 1024);
  const write = (bytes: Uint8Array) => {
    try {
      let offset = 0;
      while (offset < bytes.length) offset += Deno.stdout.writeSync(bytes.subarray(offset));
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return {
    read: () => input.read(),
    ...(input.listen ? { listen: (onBytes) => input.listen!(onBytes) } : {}),
    write,
    writeText(text) {
      // UTF-8 takes at most 3 bytes a UTF-16 unit; a long text (a snapshot) gets its own array.
      if (3 * text.length > encoded.length) return write(encoder.encode(text));
      const { written } = encoder.encodeInto(text, encoded);
      return write(encoded.subarray(0, written));
    },
    close() {
      input.close();
      return Promise.resolve();
    },
  };
}

type Reader = Pick<BytePipe, "read" | "listen"> & { close(): void };

/**
 * stdin (fd 0) as a `node:net` socket read into one reused buffer (`onread`);
 * null when it is no pipe or socket. A socket that emits `data` allocates a
 * buffer per read, which V8 frees only when it next collects: 8 MiB lines read
 * and dropped unparsed took the player past 700 MB resident (measured,
 * player_fuzz inputs), against a flat 100 MB this way.
 *
 * Two ways to read it. `read()` pauses the socket from each read until the
 * next call, so the view stays valid meanwhile (the flags line). `listen()`,
 * the player's request loop (`LineTransport`), hands each read to its callback
 * as it comes and keeps the socket reading: no pause and resume, no promise per
 * read. Pausing cost the player's wake `Socket.resume` and a new read started
 * (3.5% of its samples at one action a wake); the callback has split the read
 * into requests before the next read can fill the buffer. Requests read while
 * an asynchronous request (a Project write) holds the order wait in the
 * player's backlog rather than in the pipe; the service sends them anyway.
 */
function socketReader(): Reader | null {
  // Measured on Linux only; other systems keep the path known to work there.
  if (Deno.build.os !== "linux" || Deno.stdin.isTerminal()) return null;
  const reader = new SocketReader();
  const socket = stdinSocket(reader.buffer, (view) => reader.onRead(view));
  if (!socket) return null;
  reader.attach(socket);
  return reader;
}

/** The state of `socketReader`: a read or a listen waiting, and what the socket said. */
class SocketReader implements Reader {
  readonly buffer = new Uint8Array(64 * 1024);
  #socket: Socket | null = null;
  /** A read that came before it was asked for; the socket is paused and keeps it. */
  #ready: Uint8Array | null = null;
  #waiter: PromiseWithResolvers<Uint8Array | null> | null = null;
  /** The callback of `listen()` while it listens, and the end of its listen. */
  #listener: { onBytes: (view: Uint8Array) => void; done: PromiseWithResolvers<void> } | null =
    null;
  #failure: Error | null = null;
  #isEnded = false;
  #isPaused = false;

  /** Follows the socket's end and failure. */
  attach(socket: Socket): void {
    this.#socket = socket;
    socket.on("end", () => {
      this.#isEnded = true;
      this.#wake();
    });
    socket.on("error", (error: Error) => {
      this.#failure = error;
      this.#wake();
    });
  }

  /** A read of the socket: whether it reads on (listening), or pauses with `view` kept. */
  onRead(view: Uint8Array): boolean {
    if (this.#listener) {
      try {
        this.#listener.onBytes(view);
        return true;
      } catch (error) {
        this.#failure = error as Error;
        this.#wake();
        return false;
      }
    }
    this.#isPaused = true;
    if (!this.#answer(view)) this.#ready = view;
    return false;
  }

  read(): Promise<Uint8Array | null> {
    const ready = this.#takeReady();
    if (ready) return Promise.resolve(ready);
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#isEnded) return Promise.resolve(null);
    this.#resume(); // the view handed out last is done with
    this.#waiter = Promise.withResolvers();
    return this.#waiter.promise;
  }

  listen(onBytes: (bytes: Uint8Array) => void): Promise<void> {
    const ready = this.#takeReady();
    try {
      if (ready) onBytes(ready);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#isEnded) return Promise.resolve();
    this.#listener = { onBytes, done: Promise.withResolvers() };
    this.#resume();
    return this.#listener.done.promise;
  }

  close(): void {
    this.#isEnded = true;
    this.#ready = null;
    this.#socket?.destroy();
    this.#wake();
  }

  #takeReady(): Uint8Array | null {
    const ready = this.#ready;
    this.#ready = null;
    return ready;
  }

  #resume(): void {
    if (!this.#isPaused) return;
    this.#isPaused = false;
    this.#socket?.resume();
  }

  /** Hands `view` to the read waiting, or ends it (with the failure, or the end); false if none waits. */
  #answer(view: Uint8Array | null): boolean {
    const w = this.#waiter;
    if (!w) return false;
    this.#waiter = null;
    if (view) w.resolve(view);
    else if (this.#failure) w.reject(this.#failure);
    else w.resolve(null);
    return true;
  }

  /** Ends the read or the listen waiting: the pipe ended or failed. */
  #wake(): void {
    const l = this.#listener;
    this.#listener = null;
    if (!l) return void this.#answer(null);
    if (this.#failure) l.done.reject(this.#failure);
    else l.done.resolve();
  }
}

/**
 * fd 0 as a `node:net` socket read into `buffer`, each read handed to `onRead`
 * (a view of `buffer`), which says whether the socket reads on or pauses until
 * resumed; null when fd 0 is a file ("Unsupported fd type").
 */
function stdinSocket(buffer: Uint8Array, onRead: (view: Uint8Array) => boolean): Socket | null {
  try {
    return new Socket({
      fd: 0,
      readable: true,
      writable: false,
      onread: { buffer, callback: (n: number) => onRead(buffer.subarray(0, n)) },
    });
  } catch {
    return null;
  }
}

/** stdin through `Deno.stdin.read`: a file, a terminal, or any stdin off Linux. */
function stdinReader(): Reader {
  const buffer = new Uint8Array(64 * 1024);
  // A read on stdin cannot be cancelled: closing ends the wait on it instead.
  const closed = Promise.withResolvers<null>();
  let isClosed = false;
  return {
    async read() {
      if (isClosed) return null;
      const n = await Promise.race([Deno.stdin.read(buffer), closed.promise]);
      return n === null || isClosed ? null : buffer.subarray(0, n);
    },
    close() {
      isClosed = true;
      closed.resolve(null);
    },
  };
}

/** The longest first line `takeFirstLine` reads. */
const MAX_FIRST_LINE = 64 * 1024;

/**
 * Reads one line from `pipe` (the flags of a player started before its
 * settings were known, `cueport player --flags-on-stdin`), and the pipe that
 * goes on after it: what came in the same read is given first.
 * @throws {Error} when the pipe ends, or the line is longer than 64 KiB
 */
export async function takeFirstLine(pipe: BytePipe): Promise<{ line: string; rest: BytePipe }> {
  // One decoder across reads: a character may be split between two.
  const decoder = new TextDecoder();
  let text = "";
  while (true) {
    const bytes = await pipe.read();
    if (bytes === null) throw new Error("stdin ended before the flags line");
    const end = bytes.indexOf(0x0a);
    if (end < 0) {
      text += decoder.decode(bytes, { stream: true });
      if (text.length > MAX_FIRST_LINE) throw new Error("the flags line is too long");
      continue;
    }
    text += decoder.decode(bytes.subarray(0, end));
    let after: Uint8Array | null = end + 1 < bytes.length ? bytes.slice(end + 1) : null;
    /** What came after the line in its read, once. */
    const takeAfter = () => {
      const first = after;
      after = null;
      return first;
    };
    const rest: BytePipe = {
      read() {
        const first = takeAfter();
        return first ? Promise.resolve(first) : pipe.read();
      },
      write: (b) => pipe.write(b),
      close: () => pipe.close(),
    };
    // The kept-buffer writer goes on too: the production player starts with --flags-on-stdin.
    if (pipe.writeText) rest.writeText = (text) => pipe.writeText!(text);
    if (pipe.listen) {
      rest.listen = (onBytes) => {
        const first = takeAfter();
        try {
          if (first) onBytes(first);
        } catch (error) {
          return Promise.reject(error);
        }
        return pipe.listen!(onBytes);
      };
    }
    return { line: text, rest };
  }
}
