import assert from "node:assert/strict";
import { Outbox } from "../../../server/osc/outbox.ts";
import { peerOn, recordingSocket } from "./_recording.ts";

Deno.test("Outbox.refuse() answers a sender that may send in full, and one that may not with at most its datagram's size, once a second", () => {
  const socket = recordingSocket();
  let isAllowed = true;
  const lines: string[] = [];
  const outbox = new Outbox({
    bytesPerSecond: 1e9,
    isAllowed: () => isAllowed,
    log: (line) => lines.push(line),
  });
  const peer = peerOn(socket);
  outbox.refuseUnpaired(peer, "/play");
  assert.equal(socket.sent.length, 1);
  assert.match(JSON.stringify(socket.sent[0]!.body), /AUTHENTICATION_FAILED/);
  assert.equal(lines.length, 1);

  isAllowed = false;
  const bytes: number[] = [];
  const sizing = { ...peer, size: 4096, socket: { send: (b: Uint8Array) => bytes.push(b.length) } };
  for (let i = 0; i < 5; i++) outbox.refuseUnpaired(sizing, "/play");
  assert.equal(bytes.length, 2, "a burst of two refusals, then none"); // one a second, a burst of 2
  assert.equal(lines.length, 1, "the log says it once a minute per sender");
  const tiny = { ...sizing, address: "10.0.0.11", hostname: "10.0.0.11", size: 4 };
  outbox.refuseUnpaired(tiny, "/play");
  assert.equal(bytes.length, 2, "no refusal bigger than the datagram");
});

Deno.test("Outbox.send() keeps a remote address within its byte budget, a local one without", () => {
  const socket = recordingSocket();
  const outbox = new Outbox({ bytesPerSecond: 100, isAllowed: () => true });
  const remote = peerOn(socket);
  const reply = { address: "/ping", reply: true } as const;
  for (let i = 0; i < 10; i++) outbox.answer(remote, reply, { data: { ok: true } });
  const reached = socket.sent.length;
  assert.ok(reached > 0 && reached < 10, `${reached} of 10 within a 200-byte burst`);
  assert.ok(outbox.withheld > 0);
  const local = { ...remote, address: "127.0.0.1", hostname: "127.0.0.1", isLocal: true };
  for (let i = 0; i < 10; i++) outbox.answer(local, reply, { data: { ok: true } });
  assert.equal(socket.sent.length, reached + 10);
});
