/**
 * The worker behind a `UdpPort` (udp_port.ts): it owns the UDP sockets of
 * one port, reads them in a loop that does nothing else, and hands the
 * datagrams to the service's thread in batches; it sends what the service
 * gives it, in order. Reading here keeps the kernel's receive buffer
 * (Linux's default is 208 KiB, about 10 ms of a 20,000 a second stream,
 * and Deno cannot raise it) drained while the service's thread collects
 * garbage or runs other work: the queue here is the buffer instead.
 * @module
 */
/// <reference lib="deno.worker" />
import { listenDatagrams } from "./datagram.ts";
import type { FromPort, ToPort } from "./udp_port.ts";

/** Datagrams held for the service before more are dropped: bytes, and count. */
const MAX_HELD_BYTES = 16 * 1024 * 1024;
const MAX_HELD = 200_000;
/** Datagrams waiting to leave one socket; more are dropped, as a full link would. */
const MAX_QUEUED_SENDS = 65_536;
const HELD_START_BYTES = 64 * 1024;

let sockets: Deno.DatagramConn[] = [];
/** The datagrams read since the last batch: bytes back to back, and where each ends. */
let held = new Uint8Array(HELD_START_BYTES);
let heldBytes = 0;
let ends: number[] = [];
let hosts: string[] = [];
let ports: number[] = [];
let from: number[] = [];
/** A batch is with the service: the next waits for its `ack`. */
let isBusy = false;
let dropped = 0;
const outgoing: Array<Array<{ bytes: Uint8Array<ArrayBuffer>; addr: Deno.NetAddr }>> = [];

function post(message: FromPort, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

function flush(): void {
  if (ends.length === 0) {
    isBusy = false;
    return;
  }
  const data = held.slice(0, heldBytes);
  post({ type: "batch", data, ends, hosts, ports, from, dropped }, [data.buffer]);
  // A backlog grew the buffer: it goes back to its first size once handed over.
  if (held.length > HELD_START_BYTES) held = new Uint8Array(HELD_START_BYTES);
  heldBytes = 0;
  ends = [];
  hosts = [];
  ports = [];
  from = [];
  isBusy = true;
}

function hold(data: Uint8Array, addr: Deno.NetAddr, index: number): void {
  if (heldBytes + data.length > MAX_HELD_BYTES || ends.length >= MAX_HELD) {
    dropped++;
    return;
  }
  if (heldBytes + data.length > held.length) {
    const bigger = new Uint8Array(Math.max(held.length * 2, heldBytes + data.length));
    bigger.set(held.subarray(0, heldBytes));
    held = bigger;
  }
  held.set(data, heldBytes);
  heldBytes += data.length;
  ends.push(heldBytes);
  hosts.push(addr.hostname);
  ports.push(addr.port);
  from.push(index);
  if (!isBusy) flush();
}

async function read(socket: Deno.DatagramConn, index: number): Promise<void> {
  // One buffer for every datagram; `hold` copies what it keeps.
  const buffer = new Uint8Array(65_536);
  try {
    while (true) {
      const [data, addr] = await socket.receive(buffer);
      if (addr.transport === "udp") hold(data, addr, index);
    }
  } catch {
    // closed
  }
}

/** Sends leave one at a time per socket, in order: a burst all in flight overflows loopback. */
async function pump(index: number): Promise<void> {
  const queue = outgoing[index]!;
  while (queue.length > 0) {
    const { bytes, addr } = queue[0]!;
    try {
      await sockets[index]!.send(bytes, addr);
    } catch {
      // a peer gone (ICMP unreachable) or a closed socket: UDP promises nothing
    }
    queue.shift();
  }
}

function send(message: Extract<ToPort, { type: "send" }>): void {
  message.bytes.forEach((bytes, i) => {
    const index = message.from[i]!;
    const queue = outgoing[index];
    if (!queue || queue.length >= MAX_QUEUED_SENDS) return;
    const addr: Deno.NetAddr = {
      transport: "udp",
      hostname: message.hosts[i]!,
      port: message.ports[i]!,
    };
    queue.push({ bytes, addr });
    if (queue.length === 1) void pump(index);
  });
}

self.onmessage = (event: MessageEvent<ToPort>) => {
  const message = event.data;
  switch (message.type) {
    case "open":
      try {
        sockets = listenDatagrams(
          message.hosts,
          message.port,
          (text, level) => post({ type: "log", message: text, level }),
        );
      } catch (error) {
        post({ type: "failed", name: (error as Error).name, message: (error as Error).message });
        return;
      }
      sockets.forEach((socket, index) => {
        outgoing.push([]);
        void read(socket, index);
      });
      post({ type: "opened", addrs: sockets.map((s) => s.addr as Deno.NetAddr) });
      return;
    case "ack":
      flush();
      return;
    case "send":
      send(message);
      return;
    case "close":
      for (const socket of sockets) socket.close();
      post({ type: "closed" });
      return;
  }
};
