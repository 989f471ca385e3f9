/**
 * The WebSocket clients of the OSCQuery port: `LISTEN` and `IGNORE`, the
 * listened addresses' values as binary OSC messages, and the send budget of
 * the service's other WebSockets. A client holds at most `maxBufferedBytes`
 * unsent in its socket; past that only the last value of each address it
 * listens to waits (at most one message per address), and a client whose
 * held values have not all gone out within `lagCloseMs` (it reads slower
 * than they change, or not at all) is closed with 1013. A revoked device's clients are closed with 1008.
 * @module
 */
import type { RateMeter } from "../auth/rate_limit.ts";
import type { Core, UpdateBatch } from "../core/mod.ts";
import { binaryFrame, ServerWebSocket } from "../net/mod.ts";
import { batchFeedback, currentFeedback } from "./feedback.ts";
import { encodeMessage } from "./replies.ts";

/** The budget of each client. */
export interface ListenerLimits {
  /** Unsent bytes a client's socket may hold. */
  maxBufferedBytes: number;
  /** A client over its budget this long is closed (1013). */
  lagCloseMs: number;
}

/** Most addresses one client may listen to, and the longest address it may name. */
export const MAX_LISTENS = 512;
const MAX_PATH_CHARS = 256;
/** How often held values are looked at while any client holds some. */
const SWEEP_MS = 25;

/** Why the server closes a client (the codes of the other WebSockets). */
export const LISTENER_CLOSES = {
  tooSlow: { code: 1013, reason: "Too slow: not reading its messages" },
  revoked: { code: 1008, reason: "Device revoked" },
  shutdown: { code: 1001, reason: "Service shutting down" },
} as const;

/** One WebSocket client. */
interface Listener {
  socket: ServerWebSocket;
  address: string;
  deviceId: string | undefined;
  listens: Set<string>;
  /** The last value of each address that found no room (its frame), in the order to send. */
  held: Map<string, Uint8Array>;
  /** Since when its socket holds more than the budget; null while under it. */
  overSince: number | null;
}

/** The OSCQuery port's WebSocket clients. */
export class QueryListeners {
  #core: Core;
  #limits: ListenerLimits;
  #rate: RateMeter;
  #all = new Set<Listener>();
  #sweep: ReturnType<typeof setInterval> | null = null;
  #unsubscribe: () => void;

  /** Subscribes to the core's event bus. */
  constructor(core: Core, options: { limits: ListenerLimits; rateLimit: RateMeter }) {
    this.#core = core;
    this.#limits = options.limits;
    this.#rate = options.rateLimit;
    this.#unsubscribe = core.bus.subscribe((batch) => this.#push(batch));
  }

  /** Clients connected and not closing. */
  get size(): number {
    return this.#all.size;
  }

  /** Takes an upgraded socket of a caller let in with the view scope (as `deviceId`, when a device). */
  add(
    socket: ServerWebSocket,
    peer: { address: string },
    deviceId: string | undefined,
  ): void {
    const listener: Listener = {
      socket,
      address: peer.address,
      deviceId,
      listens: new Set(),
      held: new Map(),
      overSince: null,
    };
    socket.onopen = () => this.#all.add(listener);
    socket.onclose = () => this.#all.delete(listener);
    socket.onmessage = (event) => this.#command(listener, event.data);
  }

  /** Closes the clients of a revoked device. */
  closeDevice(deviceId: string): void {
    for (const l of this.#all) if (l.deviceId === deviceId) this.#close(l, LISTENER_CLOSES.revoked);
  }

  /** Closes every client and stops listening to the bus. */
  close(): void {
    this.#unsubscribe();
    if (this.#sweep !== null) clearInterval(this.#sweep);
    this.#sweep = null;
    for (const l of [...this.#all]) this.#close(l, LISTENER_CLOSES.shutdown);
  }

  #close(listener: Listener, why: { code: number; reason: string }): void {
    this.#all.delete(listener);
    listener.held.clear();
    listener.socket.close(why.code, why.reason);
  }

  #command(listener: Listener, data: string | Uint8Array): void {
    try {
      this.#rate.take(listener.address); // local clients pass: the meter decides
    } catch {
      return; // over the address's budget: the command is dropped
    }
    let command: { COMMAND?: unknown; DATA?: unknown };
    try {
      command = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
    } catch {
      return;
    }
    const path = command?.DATA;
    if (typeof path !== "string" || path === "" || path.length > MAX_PATH_CHARS) return;
    if (command.COMMAND === "IGNORE") {
      listener.listens.delete(path);
      listener.held.delete(path);
      return;
    }
    if (command.COMMAND !== "LISTEN" || listener.listens.size >= MAX_LISTENS) return;
    listener.listens.add(path);
    // The current value at once, as a subscriber on the OSC port gets it.
    const now = currentFeedback(this.#core.model, null).find((f) => f.address === path);
    if (now) this.#send(listener, path, binaryFrame(encodeMessage(now.address, now.args)));
  }

  #push(batch: UpdateBatch): void {
    if (this.#all.size === 0) return;
    const feedback = batchFeedback(this.#core.model, batch.updates) ??
      currentFeedback(this.#core.model, null);
    const active = this.#core.model.activeProjectId;
    for (const message of feedback) {
      if (message.projectId !== null && message.projectId !== active) continue;
      let bytes: Uint8Array | null = null; // framed once for every client
      for (const listener of this.#all) {
        if (!listener.listens.has(message.address)) continue;
        bytes ??= binaryFrame(encodeMessage(message.address, message.args));
        this.#send(listener, message.address, bytes);
      }
    }
  }

  /** Sends a frame at once when the socket has room and nothing waits; else holds the last value. */
  #send(listener: Listener, address: string, bytes: Uint8Array): void {
    const socket = listener.socket;
    if (socket.readyState !== ServerWebSocket.OPEN) return;
    if (
      listener.held.size === 0 &&
      socket.bufferedAmount + bytes.length <= this.#limits.maxBufferedBytes
    ) {
      socket.sendFrame(bytes);
      return;
    }
    listener.held.delete(address); // re-inserted: values go out in the order they last changed
    listener.held.set(address, bytes);
    listener.overSince ??= performance.now();
    this.#sweep ??= setInterval(() => this.#release(), SWEEP_MS);
  }

  /** Sends held values to clients that made room; closes one over its budget too long. */
  #release(): void {
    const now = performance.now();
    let isHolding = false;
    for (const listener of this.#all) {
      if (listener.held.size === 0) continue;
      const socket = listener.socket;
      for (const [address, bytes] of listener.held) {
        if (socket.bufferedAmount + bytes.length > this.#limits.maxBufferedBytes) break;
        socket.sendFrame(bytes);
        listener.held.delete(address);
      }
      // Caught up: every held value went out. One that never does within lagCloseMs (it reads
      // slower than its values change, or not at all) is closed.
      if (listener.held.size === 0) {
        listener.overSince = null;
        continue;
      }
      if (now - listener.overSince! > this.#limits.lagCloseMs) {
        this.#close(listener, LISTENER_CLOSES.tooSlow);
      } else isHolding = true;
    }
    if (!isHolding && this.#sweep !== null) {
      clearInterval(this.#sweep);
      this.#sweep = null;
    }
  }
}
