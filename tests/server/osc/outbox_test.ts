import assert from "node:assert/strict";
import { Outbox } from "../../../server/osc/outbox.ts";
import { CueportError } from "../../../server/core/mod.ts";
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

Deno.test("Outbox.answer() to an address over its budget withholds the reply without encoding it", () => {
  let sent = 0;
  const socket = { send: () => void sent++ };
  const outbox = new Outbox({ bytesPerSecond: 100, isAllowed: () => true, now: () => 0 });
  const remote = peerOn(socket);
  const reply = { address: "/ping", reply: true } as const;
  let encoded = 0;
  const data = {
    toJSON() {
      encoded++;
      return { ok: true };
    },
  };
  while (outbox.withheld === 0) outbox.answer(remote, reply, { data });
  assert.ok(sent > 0 && encoded === sent + 1, `${sent} sent, ${encoded} encoded within the burst`);
  outbox.send(remote, 9000, new Uint8Array(outbox.available(remote.address))); // spent to the byte
  const [sentBefore, encodedBefore, withheldBefore] = [sent, encoded, outbox.withheld];
  for (let i = 0; i < 1000; i++) outbox.answer(remote, reply, { data });
  assert.equal(sent, sentBefore, "nothing more is sent");
  assert.equal(encoded, encodedBefore, "and nothing more is encoded");
  assert.ok(
    outbox.withheld - withheldBefore >= 1000 * 40,
    "each withheld reply counts at least its least size",
  );
});

Deno.test("Outbox.replyError() and reply() to an address over its budget withhold without encoding (the /subscribe, /ping, /connect and bundle answers)", () => {
  let sent = 0;
  const socket = { send: () => void sent++ };
  const outbox = new Outbox({ bytesPerSecond: 100, isAllowed: () => true, now: () => 0 });
  const remote = peerOn(socket);
  let encoded = 0;
  const details = {
    toJSON() {
      encoded++;
      return { field: "filter" };
    },
  };
  const error = new CueportError("INVALID_MESSAGE", "bad filter", details);
  outbox.send(remote, 9000, new Uint8Array(outbox.available(remote.address))); // spent to the byte
  const before = sent;
  for (let i = 0; i < 100; i++) {
    outbox.replyError(remote, 9000, "/subscribe", error);
    outbox.reply(remote, 9000, "/ping", { data: details });
  }
  assert.equal(sent, before, "nothing is sent");
  assert.equal(encoded, 0, "and nothing is encoded");
  const local = { ...remote, address: "127.0.0.1", hostname: "127.0.0.1", isLocal: true };
  outbox.replyError(local, 9000, "/subscribe", error);
  assert.equal(sent, before + 1, "a local address is answered");
  assert.ok(encoded > 0);
});

Deno.test("Outbox.answer() sends a reply exactly when its bytes are within the budget (the bound before encoding never withholds more)", () => {
  for (
    const address of ["/a", "/cue/1/start", "/\u00fc/\u{1d11e}/x", '/q"uote', `/${"n".repeat(300)}`]
  ) {
    for (
      const outcome of [{ data: undefined }, { data: "x".repeat(50) }, { error: new Error("x") }]
    ) {
      const sizes: number[] = [];
      const sizing = { send: (b: Uint8Array) => sizes.push(b.length) };
      const probe = new Outbox({ bytesPerSecond: 1e9, isAllowed: () => true });
      probe.answer({ ...peerOn(sizing), isLocal: true }, { address, reply: true }, outcome);
      const size = sizes[0]!;
      for (const budget of [size - 1, size]) {
        const outbox = new Outbox({
          bytesPerSecond: budget / 2,
          isAllowed: () => true,
          now: () => 0,
        });
        const before = sizes.length;
        outbox.answer(peerOn(sizing), { address, reply: true }, outcome);
        assert.equal(sizes.length - before, budget >= size ? 1 : 0, `${address} within ${budget}`);
      }
    }
  }
});
