/**
 * A `SocketServer` on a free loopback port over an in-process player (no
 * subprocess), with the limits a test chooses, and a raw WebSocket client
 * that floods without reading, for the budget tests.
 * @module
 */
import net from "node:net";
import { type Authenticator, isLocalAddress } from "../../../server/auth/mod.ts";
import { RateLimiter } from "../../../server/auth/rate_limit.ts";
import { Core, CueportError } from "../../../server/core/mod.ts";
import { ConnectionServer } from "../../../server/net/mod.ts";
import { PlayerSupervisor } from "../../../server/player_client/mod.ts";
import { type SocketLimits, SocketServer } from "../../../server/socket/mod.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { inProcessLauncher } from "../../../tools/testing/in_process.ts";
import { writeJsonAtomic } from "../../../lib/atomic_write.ts";
import type { Project } from "../../../protocol/model.ts";

/** The service defaults (server/config.ts), for the limits a test leaves out. */
const DEFAULT_LIMITS: SocketLimits = {
  maxMessageBytes: 64 * 1024,
  maxBufferedBytes: 4 * 1024 * 1024,
  lagCloseMs: 10_000,
  authTimeoutMs: 10_000,
  unauthenticatedMaxBufferedBytes: 64 * 1024,
};

/** A running socket server and what the test needs of it. */
export interface SocketHarness {
  port: number;
  sockets: SocketServer;
  core: Core;
  /** Lines the socket server logged. */
  logs: string[];
  stop(): Promise<void>;
}

/**
 * A test authenticator: local clients get in with empty credentials, remote
 * ones with the token "good"; `gate` holds every answer back until it settles
 * (an approval waiting for the operator).
 */
export function testAuthenticator(gate?: Promise<void>): Authenticator {
  return {
    async authenticate(credentials) {
      await gate;
      if (isLocalAddress(credentials.address) || credentials.token === "good") {
        return { device: "test" };
      }
      throw new CueportError("AUTHENTICATION_FAILED", "Pair this device first");
    },
  };
}

/** Starts a socket server on 127.0.0.1 with `limits` over the defaults, and `projects` beside the fixture. */
export async function startSocketServer(
  limits: Partial<SocketLimits> = {},
  options: { authenticator?: Authenticator; projects?: Project[] } = {},
): Promise<SocketHarness> {
  const dataDir = await fixtureDataDir();
  for (const project of options.projects ?? []) {
    await writeJsonAtomic(`${dataDir}/projects/${project.id}/project.json`, project);
  }
  const supervisor = new PlayerSupervisor(inProcessLauncher(dataDir));
  const core = new Core(supervisor, { coalesceMs: 0 });
  supervisor.start();
  if (!(await supervisor.waitReady(120_000))) throw new Error("The player did not start");
  const logs: string[] = [];
  const sockets = new SocketServer(core, {
    authenticator: options.authenticator ?? testAuthenticator(),
    rateLimit: new RateLimiter({ ratePerSecond: 200, burst: 400 }).meter("messages", 50_000),
    limits: { ...DEFAULT_LIMITS, ...limits },
    version: "test",
    hosts: new Set(["127.0.0.1", "localhost"]),
    origins: [],
    log: (line) => logs.push(line),
  });
  // The WebSocket port as the service runs it, with budgets that never get in the way.
  const server = ConnectionServer.listen({
    name: "WebSocket",
    hosts: ["127.0.0.1"],
    port: 0,
    limits: {
      maxConnections: 1000,
      maxConnectionsPerAddress: 1000,
      localReserve: 100,
      headerTimeoutMs: 10_000,
      keepAliveTimeoutMs: 10_000,
    },
    isLocal: isLocalAddress,
    isWebSocket: true,
    handler: (request, peer) => sockets.handle(request, peer),
    log: () => {},
  });
  return {
    port: server.port,
    sockets,
    core,
    logs,
    async stop() {
      sockets.close();
      await server.close();
      await supervisor.stop();
      core.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/** One masked text frame (any length), as a client sends it. */
export function textFrame(text: string): Uint8Array {
  const payload = new TextEncoder().encode(text);
  const n = payload.length;
  const header = n < 126
    ? [0x81, 0x80 | n]
    : n < 65536
    ? [0x81, 0x80 | 126, n >> 8, n & 255]
    : [0x81, 0x80 | 127, 0, 0, 0, 0, (n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255];
  const mask = [0x12, 0x34, 0x56, 0x78];
  const frame = new Uint8Array(header.length + 4 + n);
  frame.set(header);
  frame.set(mask, header.length);
  for (let i = 0; i < n; i++) frame[header.length + 4 + i] = payload[i]! ^ mask[i & 3]!;
  return frame;
}

/** The resident set of this process, bytes (the service runs in-process). */
export function rss(): number {
  return Deno.memoryUsage().rss;
}

/** A raw WebSocket client that writes as fast as the server takes it and never reads. */
export class FloodClient {
  #sock: net.Socket;
  /** Whether the connection has ended (the server closed or reset it). */
  isClosed = false;

  private constructor(sock: net.Socket) {
    this.#sock = sock;
    sock.on("error", () => {}); // EPIPE / ECONNRESET once the server drops us: expected
    sock.once("close", () => (this.isClosed = true));
  }

  /**
   * Connects (from `localAddress`, e.g. 127.0.0.2 for a remote client),
   * upgrades, optionally authenticates with `auth` (and reads its answer),
   * then stops reading.
   */
  static async open(
    port: number,
    options: { localAddress?: string; auth?: Record<string, unknown> } = {},
  ): Promise<FloodClient> {
    const sock = net.connect({ host: "127.0.0.1", port, localAddress: options.localAddress });
    await new Promise<void>((resolve, reject) => {
      let seen = "";
      const onData = (chunk: Uint8Array) => {
        seen += new TextDecoder().decode(chunk);
        if (!seen.includes(" 101 ")) return reject(new Error(`Upgrade refused: ${seen}`));
        if (options.auth && !seen.includes('"authenticated":true')) {
          if (seen.includes('"type":"error"')) reject(new Error(`Auth refused: ${seen}`));
          return;
        }
        sock.off("data", onData);
        sock.off("error", reject);
        resolve();
      };
      sock.once("error", reject);
      sock.once("connect", () => {
        sock.write(
          "GET /v1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        );
        if (options.auth) sock.write(textFrame(JSON.stringify(options.auth)));
      });
      sock.on("data", onData);
    });
    sock.pause(); // from here on nothing is read: the server's answers back up
    return new FloodClient(sock);
  }

  /**
   * Writes `frames` over and over until `totalBytes` are written, the
   * connection ends, or `check` (called after every chunk, and every 10 ms
   * while the socket buffer is full) returns false. Resolves with the bytes
   * written.
   */
  async flood(frames: Uint8Array, totalBytes: number, check: () => boolean): Promise<number> {
    const repeat = Math.max(1, Math.floor(256 * 1024 / frames.length));
    const chunk = new Uint8Array(frames.length * repeat);
    for (let i = 0; i < repeat; i++) chunk.set(frames, i * frames.length);
    let written = 0;
    let isFull = false;
    const onDrain = () => (isFull = false);
    this.#sock.on("drain", onDrain);
    try {
      while (written < totalBytes && !this.isClosed && check()) {
        isFull = !this.#sock.write(chunk);
        written += chunk.length;
        // Yield so the server (same process) runs; while the buffer is full, wait for room.
        await new Promise((resolve) => setTimeout(resolve, 0));
        while (isFull && !this.isClosed && check()) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    } finally {
      this.#sock.off("drain", onDrain);
    }
    return written;
  }

  /** Drops the connection. */
  destroy(): void {
    this.#sock.destroy();
  }
}
