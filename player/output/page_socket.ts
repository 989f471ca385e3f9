/**
 * The output page's socket on the player's side: one page at a time (a second is refused at
 * the upgrade, or closed with `PAGE_TAKEN` when both upgraded at once: `socket_guard.ts`), each
 * message within the socket's bounds (`PAGE_SOCKET_BOUNDS`: size, rate) and of the page's
 * schema (`FromPage`), or the page is closed (1009, 1008) and the fault counted in one log line
 * a minute at most. What the page
 * says is a report, never an order: a page that says its WebGL2 is lost is believed only once
 * its reports show it draws nothing (`GL_LOST_REPORTS` in a row), and only then does the
 * browser start again with software GL.
 * @module
 */
import { FromPage, PAGE_SOCKET_BOUNDS, PAGE_TAKEN, type ToPage } from "../../protocol/output.ts";
import { OnePageSocket, type SocketClose } from "./socket_guard.ts";
import type { SocketFaultLog } from "./socket_log.ts";
import type { PageMidi } from "./midi_ports.ts";

/** Reports in a row with no frame drawn, after the page said its GL is lost, that confirm it. */
export const GL_LOST_REPORTS = 3;

/**
 * A socket's close, as the log and a recording's outcome say it.
 * @example
 * ```ts
 * describeClose({ code: 1006, reason: "", isFault: false }); // "code 1006, no close frame"
 * ```
 */
export function describeClose(how: SocketClose): string {
  if (how.code === 1006) return "code 1006, no close frame";
  return how.reason ? `code ${how.code}, "${how.reason}"` : `code ${how.code}`;
}

/** A frame report of the page. */
export type Report = Extract<FromPage, { type: "report" }>;

/** What the page's messages do, on the output's side (`output.ts`). */
export interface PageSocketHost {
  /** A page connected (`connection`: its number, counted from 1). */
  opened(connection: number): void;
  /** Any message, any connection: a sign of life. */
  progress(): void;
  /** The page said hello, and what GL it has (`gl`; `unavailable`: no WebGL2). */
  hello(gl: string): void;
  /** The player's clock, for `pong`. */
  now(): number;
  /** A frame report of the page. */
  report(report: Report): void;
  /** A clip the page could not play (`clipId`), and why. */
  fault(clipId: string, message: string): void;
  /** A program the page's GL refused, and its log. */
  compileError(program: string, log: string): void;
  /** A recording chunk (binary) from `connection`. */
  chunk(bytes: Uint8Array, connection: number): void;
  /** The answer to a request (`frame`, `level`, `recorded`). */
  settle(id: number, message: FromPage): void;
  /** The page's GL is lost, as it said and its reports show: start with software GL. */
  glFails(): void;
  /** The page's local MIDI ports, or input on them (`midi_ports.ts`). */
  midi?(message: PageMidi): void;
  /** The page connected went away (its socket closed, `how` said in the log already). */
  closed?(how: SocketClose): void;
}

/** The output page's socket: the one connected, its messages checked and handled. */
export class PageSocket {
  readonly #host: PageSocketHost;
  readonly #socket: OnePageSocket;
  readonly #faults: SocketFaultLog;
  /** The last page socket that closed, and how (a recording's outcome says it). */
  lastClose: { connection: number; how: SocketClose } | null = null;
  #connection = 0;
  /** Reports with no frame since the page said its GL is lost (null: it did not say so). */
  #glLostReports: number | null = null;

  /**
   * `now`: monotonic ms, for the rate bound (tests give a virtual clock); `faults` counts the
   * pages closed for a fault and says each other page socket that closes (`#closed`).
   */
  constructor(host: PageSocketHost, options: { faults: SocketFaultLog; now?: () => number }) {
    this.#host = host;
    this.#faults = options.faults;
    this.#socket = new OnePageSocket({
      bounds: PAGE_SOCKET_BOUNDS,
      now: options.now ?? (() => performance.now()),
      faults: options.faults,
      // The page connected keeps the output (and the recording it started).
      taken: {
        code: PAGE_TAKEN,
        reason: "another output page is connected",
        what: "a second output page's socket, closed",
      },
    });
  }

  /** The number of the page connected now (counted from 1), or null. */
  get connection(): number | null {
    return this.isOpen ? this.#connection : null;
  }

  /** Whether a page is connected. */
  get isOpen(): boolean {
    return this.#socket.isOpen;
  }

  /** Whether a page is connected or connecting: another is refused at the upgrade. */
  get isTaken(): boolean {
    return this.#socket.isTaken;
  }

  /** Sends `message` to the page connected, if any. */
  send(message: ToPage): void {
    this.#socket.send(message);
  }

  /** A socket was opened (past the secret): the page, unless one is connected already. */
  connected(socket: WebSocket): void {
    this.#socket.accept(socket, () => {
      const connection = ++this.#connection;
      this.#glLostReports = null;
      socket.binaryType = "arraybuffer";
      return {
        name: `the output page's socket #${connection}`,
        opened: () => this.#host.opened(connection),
        received: () => this.#host.progress(),
        schema: FromPage,
        what: "a page message",
        dispatch: (message) => this.#dispatch(message),
        binary: (data) => this.#host.chunk(new Uint8Array(data), connection),
        closed: (how) => this.#closed(connection, how),
      };
    });
  }

  /** Closes the page's socket (the output stops). */
  close(): void {
    this.#socket.close();
  }

  /**
   * The page's socket `connection` closed, not by the output (`close`, whose socket is told
   * nothing): said with its code and reason (1008/1009 a bound of this side, 1001 a peer going
   * away or an unanswered ping, 1006 a browser gone without a close frame), then the host is told. One this side closed for a fault is said by the socket-fault
   * log.
   */
  #closed(connection: number, how: SocketClose): void {
    this.lastClose = { connection, how };
    if (!how.isFault) {
      this.#faults.say(`Output: the page's socket #${connection} closed (${describeClose(how)})`);
    }
    this.#host.closed?.(how);
  }

  /** Does what a page's message says (within bounds, of its schema). */
  #dispatch(message: FromPage): void {
    switch (message.type) {
      case "hello":
        // A page without WebGL2 says so in its hello: its reports will say whether it draws.
        this.#glLostReports = message.gl === "unavailable" ? 0 : null;
        this.#host.hello(message.gl);
        break;
      case "ping":
        this.send({ type: "pong", t0: message.t0, now: this.#host.now() });
        break;
      case "report":
        this.#host.report(message);
        this.#judgeGl(message);
        break;
      case "fault":
        this.#host.fault(message.clipId, message.message);
        break;
      case "compile-error":
        this.#host.compileError(message.program, message.log);
        break;
      case "gl-lost":
        this.#glLostReports ??= 0;
        break;
      case "midi-ports":
      case "midi-in":
        this.#host.midi?.(message);
        break;
      default:
        this.#host.settle(message.id, message);
    }
  }

  /**
   * A page that said its GL is lost and then reports no frame drawn, visible,
   * `GL_LOST_REPORTS` times in a row: its GL is lost. A frame drawn says it is not.
   */
  #judgeGl(report: Report): void {
    if (this.#glLostReports === null) return;
    if (report.frames > 0) {
      this.#glLostReports = null;
      return;
    }
    if (report.visibility !== "visible") return;
    if (++this.#glLostReports < GL_LOST_REPORTS) return;
    this.#glLostReports = null;
    this.#host.glFails();
  }
}
