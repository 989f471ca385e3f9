/**
 * A UDP port read by its own worker (udp_port_worker.ts). Deno cannot set
 * `SO_RCVBUF`, so a socket keeps Linux's default receive buffer (208 KiB:
 * about 10 ms of a desk's 20,000 messages a second); a garbage collection
 * of the service's thread longer than that lost datagrams. The worker's
 * loop only reads, so the kernel's buffer stays drained and the datagrams
 * wait in the worker (bounded) until the service takes the next batch.
 * @module
 */
import type { SkipLog } from "./datagram.ts";

/** One bound socket of the port: what a datagram came through, and where its answer leaves. */
export interface DatagramSocket {
  /** Queues a datagram to `hostname:port` (sent in order; dropped when the queue is full). */
  send(bytes: Uint8Array<ArrayBuffer>, hostname: string, port: number): void;
}

/** Called for each datagram read, in order. */
export type DatagramHandler = (
  data: Uint8Array,
  hostname: string,
  port: number,
  socket: DatagramSocket,
) => void;

/**
 * Datagrams handled in one turn of the event loop; the rest of a batch waits for a timer
 * (`setTimeout(0)`), so HTTP and WebSocket get their turn between. A backlog on a starved
 * machine came as one batch of 20,000 datagrams, handled in one turn: local requests waited
 * 8 s behind it (issue 42). Not an immediate nor a channel's message: in Deno both run before
 * the loop polls I/O again (a chain of them starved an HTTP request for 3 s, measured).
 * 256 /control/* datagrams are some 5 ms of work on a free core.
 */
export const DATAGRAMS_PER_TURN = 256;

/** Messages to the worker. */
export type ToPort =
  | { type: "open"; hosts: readonly string[]; port: number }
  | { type: "ack" }
  | {
    type: "send";
    bytes: Uint8Array<ArrayBuffer>[];
    hosts: string[];
    ports: number[];
    from: number[];
  }
  | { type: "close" };

/** Messages from the worker. */
export type FromPort =
  | { type: "opened"; addrs: Deno.NetAddr[] }
  | { type: "failed"; name: string; message: string }
  | { type: "log"; message: string; level: "debug" | "warn" }
  | {
    type: "batch";
    /** The datagrams back to back; `ends[i]` is where datagram i ends. */
    data: Uint8Array<ArrayBuffer>;
    ends: number[];
    hosts: string[];
    ports: number[];
    /** The socket each came through. */
    from: number[];
    /** Datagrams dropped so far because the worker's queue was full. */
    dropped: number;
  }
  | { type: "closed" };

/** The UDP sockets of one port (one per host), read and written by a worker. */
export class UdpPort {
  #worker: Worker;
  #addrs: Deno.NetAddr[] = [];
  #sockets: DatagramSocket[] = [];
  #handler: DatagramHandler | null = null;
  #dropped = 0;
  #opened = Promise.withResolvers<Deno.NetAddr[]>();
  #closed = Promise.withResolvers<void>();
  #sends: Extract<ToPort, { type: "send" }> | null = null;

  private constructor(log: SkipLog) {
    this.#worker = new Worker(new URL("./udp_port_worker.ts", import.meta.url).href, {
      type: "module",
    });
    this.#worker.onmessage = (event: MessageEvent<FromPort>) => {
      const message = event.data;
      if (message.type === "batch") this.#batch(message);
      else if (message.type === "opened") this.#opened.resolve(message.addrs);
      else if (message.type === "failed") this.#opened.reject(rebuildError(message));
      else if (message.type === "log") log(message.message, message.level);
      else this.#closed.resolve();
    };
    this.#worker.onerror = (event) => {
      event.preventDefault();
      this.#opened.reject(new Error(`The UDP worker failed: ${event.message}`));
      this.#closed.resolve();
    };
  }

  /**
   * Binds `port` (0 picks one, the same for every host) on each host, as
   * `listenDatagrams` does, in a new worker.
   * @throws the bind error (`Deno.errors.AddrInUse`...) when no host can be bound
   */
  static async open(
    hosts: readonly string[],
    port: number,
    log: SkipLog,
  ): Promise<UdpPort> {
    const udp = new UdpPort(log);
    udp.#worker.postMessage({ type: "open", hosts, port } satisfies ToPort);
    try {
      udp.#addrs = await udp.#opened.promise;
    } catch (error) {
      udp.#worker.terminate();
      throw error;
    }
    udp.#sockets = udp.#addrs.map((_, index): DatagramSocket => ({
      send: (bytes, hostname, port) => udp.#send(bytes, hostname, port, index),
    }));
    return udp;
  }

  /** The bound port (the same on every host). */
  get port(): number {
    return this.#addrs[0]!.port;
  }

  /** Datagrams dropped because the service fell too far behind (the worker's queue was full). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Hands every datagram to `handler`; resolves once the port is closed. */
  serve(handler: DatagramHandler): Promise<void> {
    this.#handler = handler;
    return this.#closed.promise;
  }

  /** Closes the sockets and ends the worker. */
  async close(): Promise<void> {
    this.#worker.postMessage({ type: "close" } satisfies ToPort);
    await this.#closed.promise;
    this.#worker.terminate();
  }

  #batch(batch: Extract<FromPort, { type: "batch" }>): void {
    this.#dropped = batch.dropped;
    this.#handleFrom(batch, 0);
  }

  /**
   * Handles `DATAGRAMS_PER_TURN` datagrams of `batch` from the `first`, then the rest in a later
   * turn; the worker's next batch is asked for (`ack`) once this one is done.
   */
  #handleFrom(batch: Extract<FromPort, { type: "batch" }>, first: number): void {
    const last = Math.min(batch.ends.length, first + DATAGRAMS_PER_TURN);
    let isDone = true;
    try {
      for (let i = first, start = first === 0 ? 0 : batch.ends[first - 1]!; i < last; i++) {
        const end = batch.ends[i]!;
        this.#handler?.(
          batch.data.subarray(start, end),
          batch.hosts[i]!,
          batch.ports[i]!,
          this.#sockets[batch.from[i]!]!,
        );
        start = end;
      }
      isDone = last === batch.ends.length;
    } finally {
      if (isDone) this.#worker.postMessage({ type: "ack" } satisfies ToPort);
      else setTimeout(() => this.#handleFrom(batch, last), 0);
    }
  }

  /** Sends made in one turn go to the worker in one message (a fan-out's bytes once). */
  #send(bytes: Uint8Array<ArrayBuffer>, hostname: string, port: number, index: number): void {
    if (!this.#sends) {
      this.#sends = { type: "send", bytes: [], hosts: [], ports: [], from: [] };
      queueMicrotask(() => {
        const sends = this.#sends!;
        this.#sends = null;
        this.#worker.postMessage(sends);
      });
    }
    this.#sends.bytes.push(bytes);
    this.#sends.hosts.push(hostname);
    this.#sends.ports.push(port);
    this.#sends.from.push(index);
  }
}

/** The worker's bind error as the class Deno throws (`Deno.errors.AddrInUse`...). */
function rebuildError(failed: { name: string; message: string }): Error {
  const Class = (Deno.errors as unknown as Record<string, ErrorConstructor | undefined>)[
    failed.name
  ];
  return Class ? new Class(failed.message) : new Error(failed.message);
}
