/**
 * What the OSC probes share: a UDP peer bound to a loopback address (any
 * 127.x.y.z other than 127.0.0.1 is a remote sender to the service) that
 * counts what it is sent, pairing such a peer with `/connect`, local
 * requests timed throughout a probe, and the closing notes every probe of
 * issue 30 reports (`player restarts: N`, `local p99: X ms`).
 * @module
 */
import dgram from "node:dgram";
import { exchange, requestText } from "./_exchange.ts";
import { oscMessage } from "./_osc.ts";
import type { ServiceRun } from "./_harness.ts";
import type { Tally } from "./_tally.ts";
import { percentile } from "./_tally.ts";

/** A UDP socket on one loopback address, counting the bytes and datagrams it receives. */
export class UdpPeer {
  readonly socket: dgram.Socket;
  received = 0;
  datagrams = 0;
  sent = 0;
  /** The last few datagrams received, as latin1 text (replies are read from it). */
  readonly recent: string[] = [];

  private constructor(socket: dgram.Socket) {
    this.socket = socket;
    socket.on("message", (bytes: Uint8Array) => {
      this.received += bytes.length;
      this.datagrams++;
      this.recent.push(new TextDecoder("latin1").decode(bytes));
      if (this.recent.length > 64) this.recent.shift();
    });
  }

  /** Binds a socket on `address` (a free port). */
  static async open(address: string): Promise<UdpPeer> {
    const socket = dgram.createSocket({ type: "udp4" });
    socket.on("error", () => {});
    await new Promise<void>((resolve) => socket.bind(0, address, resolve));
    return new UdpPeer(socket);
  }

  /** The bound port. */
  get port(): number {
    return this.socket.address().port;
  }

  /** Sends `bytes` to the service's OSC port on 127.0.0.1. */
  send(bytes: Uint8Array, port: number): void {
    this.socket.send(bytes, port, "127.0.0.1");
    this.sent += bytes.length;
  }

  /** The JSON of the last reply to `address` (`/reply<address>`), or null. */
  reply(address: string): { status: string; data: Record<string, unknown> } | null {
    for (let i = this.recent.length - 1; i >= 0; i--) {
      const text = this.recent[i]!;
      if (!text.startsWith(`/reply${address}\0`)) continue;
      const json = text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
      try {
        return JSON.parse(new TextDecoder().decode(
          Uint8Array.from(json, (c) => c.charCodeAt(0)),
        ));
      } catch {
        return null;
      }
    }
    return null;
  }

  close(): void {
    try {
      this.socket.close();
    } catch { /* closed */ }
  }
}

/** A one-time code from the service (local, under the localhost exemption). */
export async function pairingCode(run: ServiceRun): Promise<string> {
  const answer = await fetch(`http://127.0.0.1:${run.ports.http}/api/v1/pair/code`, {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  });
  return (await answer.json()).otp;
}

/** Pairs `peer` as an OSC device with `scopes`; its device id, or null if refused. */
export async function pairOsc(
  run: ServiceRun,
  peer: UdpPeer,
  scopes = "view,control",
): Promise<string | null> {
  const otp = await pairingCode(run);
  peer.send(
    oscMessage("/connect", [
      { type: "s", value: otp },
      { type: "s", value: "Probe desk" },
      { type: "s", value: scopes },
    ]),
    run.ports.osc,
  );
  for (let i = 0; i < 100; i++) {
    const reply = peer.reply("/connect");
    if (reply) return reply.status === "ok" ? String(reply.data.deviceId) : null;
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}

/**
 * Times a local request every `everyMs` until `isDone()`: each round trip goes
 * into the row's local p99; one that fails (`isOk` false) or takes over 5 s
 * marks local clients not served. A request that says its own time (`ms`, timed
 * off the probe's thread: `LocalClient.request`) is counted at that time.
 * @returns the round trips, ms
 */
export async function timeLocal(
  tally: Tally,
  request: () => Promise<boolean | { isOk: boolean; ms: number }>,
  isDone: () => boolean,
  everyMs = 50,
): Promise<number[]> {
  const times: number[] = [];
  while (!isDone()) {
    const started = performance.now();
    let isOk = false;
    let ms: number | null = null;
    try {
      const outcome = await request();
      if (typeof outcome === "boolean") isOk = outcome;
      else ({ isOk, ms } = outcome);
    } catch {
      isOk = false;
    }
    ms ??= performance.now() - started;
    times.push(ms);
    tally.localMs.push(ms);
    tally.served(isOk);
    if (ms > 5000) tally.hang(`a local request took ${Math.round(ms)} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return times;
}

/**
 * A local HTTP request on a fresh connection (never a pooled one: an
 * exhausted port must be seen as it is); whether it answered `status`.
 */
export async function localRequest(
  port: number,
  method: string,
  path: string,
  options: { body?: unknown; status?: number } = {},
): Promise<boolean> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const answer = await exchange({
    port,
    data: requestText(method, path, {
      host: `127.0.0.1:${port}`,
      ...(body !== undefined ? { body, headers: { "content-type": "application/json" } } : {}),
    }),
    answerWithinMs: 5000,
    timeoutMs: 5000,
  });
  return answer.status === (options.status ?? 200);
}

/** A request from `localAddress` on a fresh connection: its status and JSON body (null if none). */
export async function requestFrom(
  port: number,
  localAddress: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number | null; body: Record<string, unknown> | null }> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const answer = await exchange({
    port,
    localAddress,
    data: requestText(method, path, {
      host: `127.0.0.1:${port}`,
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...options.headers,
      },
      ...(body !== undefined ? { body } : {}),
    }),
    answerWithinMs: 5000,
    timeoutMs: 5000,
  });
  const text = answer.text.slice(answer.text.indexOf("\r\n\r\n") + 4);
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(new TextDecoder().decode(Uint8Array.from(text, (c) => c.charCodeAt(0))));
  } catch {
    json = null;
  }
  return { status: answer.status, body: json };
}

/** The notes every probe of issue 30 ends with; call once the service is finished. */
export function closingNotes(tally: Tally): void {
  tally.note(`player restarts: ${tally.playerRestarts}`);
  const p99 = percentile(tally.localMs, 0.99);
  tally.note(`local p99: ${p99 === null ? "-" : p99} ms (${tally.localMs.length} local requests)`);
}

/** Yields to the event loop for `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
