import assert from "node:assert/strict";
import { lanAddresses, remoteUrls } from "../../../server/web/mod.ts";
import { pairingText } from "../../../server/web/pairing_text.ts";

const INTERFACES = [
  { family: "IPv4" as const, address: "127.0.0.1" },
  { family: "IPv6" as const, address: "::1" },
  { family: "IPv6" as const, address: "fe80::1c2d" },
  { family: "IPv6" as const, address: "fd00::23" },
  { family: "IPv4" as const, address: "169.254.3.4" },
  { family: "IPv4" as const, address: "192.168.1.23" },
  { family: "IPv4" as const, address: "192.168.1.23" },
  { family: "IPv4" as const, address: "10.0.0.5" },
];

Deno.test("lanAddresses() keeps what a phone can reach, IPv4 first, each once", () => {
  assert.deepEqual(lanAddresses(INTERFACES).map((i) => i.address), [
    "192.168.1.23",
    "10.0.0.5",
    "fd00::23",
  ]);
});

Deno.test("remoteUrls() gives the remote's URL per LAN address, with the code in the fragment", () => {
  assert.deepEqual(remoteUrls(17736, { otp: "483920", interfaces: INTERFACES }), [
    "http://192.168.1.23:17736/#otp=483920",
    "http://10.0.0.5:17736/#otp=483920",
    "http://[fd00::23]:17736/#otp=483920",
  ]);
  assert.deepEqual(remoteUrls(80, { interfaces: INTERFACES.slice(5, 6) }), [
    "http://192.168.1.23:80/",
  ]);
});

Deno.test("pairingText() lists the URLs and draws a QR code of the first", async () => {
  const text = await pairingText(17736, "483920", { interfaces: INTERFACES });
  const lines = text.split("\n");
  assert.equal(lines[0], "Remote: http://192.168.1.23:17736/#otp=483920");
  assert.equal(lines[2], "Remote: http://[fd00::23]:17736/#otp=483920");
  // The QR code: block characters, every row as wide as the first (a square symbol).
  const qr = lines.slice(4).filter((l) => l.includes("\u2584") || l.includes("\u2580"));
  assert.ok(qr.length >= 12, text);
  const none = await pairingText(17736, "483920", { interfaces: INTERFACES.slice(0, 3) });
  assert.match(none, /^Remote: http:\/\/localhost:17736\/ \(this machine has no LAN address/);
  assert.ok(!none.includes("\u2584"));
});

Deno.test("pairingText() draws the QR code without terminal colour codes when asked (printed to a file or a pipe)", async () => {
  const coloured = await pairingText(17736, "483920", { interfaces: INTERFACES });
  assert.ok(coloured.includes("\x1b["), "a terminal's QR code is drawn with colour codes");
  const plain = await pairingText(17736, "483920", { interfaces: INTERFACES, plain: true });
  assert.ok(!plain.includes("\x1b"), plain);
  const rows = plain.split("\n").filter((l) => /[\u2580\u2584\u2588]/.test(l));
  assert.ok(rows.length >= 12, plain);
  assert.equal(new Set(rows.map((r) => r.length)).size, 1, "every row as wide as the first");
});

Deno.test("pairingText() offers only addresses the service listens on; on loopback alone it says how to open it to the LAN", async () => {
  const urlsOf = async (hosts: string[]) =>
    (await pairingText(17736, "483920", { interfaces: INTERFACES, hosts, plain: true }))
      .split("\n").filter((l) => l.startsWith("Remote: ")).map((l) => l.slice(8));
  assert.deepEqual(await urlsOf(["::", "0.0.0.0"]), [
    "http://192.168.1.23:17736/#otp=483920",
    "http://10.0.0.5:17736/#otp=483920",
    "http://[fd00::23]:17736/#otp=483920",
  ]);
  // `::` serves IPv4 too (dual-stack); 0.0.0.0 only IPv4; an address, only itself.
  assert.equal((await urlsOf(["::"])).length, 3);
  assert.deepEqual(await urlsOf(["0.0.0.0"]), [
    "http://192.168.1.23:17736/#otp=483920",
    "http://10.0.0.5:17736/#otp=483920",
  ]);
  assert.deepEqual(await urlsOf(["127.0.0.1", "10.0.0.5"]), ["http://10.0.0.5:17736/#otp=483920"]);
  // Another written form of the same IPv6 address is the same address; a name, resolved when the
  // service bound it, cannot be told apart here: every address is offered.
  assert.deepEqual(await urlsOf(["fd00:0::23"]), ["http://[fd00::23]:17736/#otp=483920"]);
  assert.equal((await urlsOf(["127.0.0.1", "show-mac.local"])).length, 3);
  const loopback = await pairingText(17736, "483920", {
    interfaces: INTERFACES,
    hosts: ["127.0.0.1", "::1"],
  });
  assert.equal(
    loopback,
    "Remote: http://localhost:17736/ (the service listens on 127.0.0.1, ::1 only, which no " +
      "phone reaches: start it with --host ::,0.0.0.0 or a LAN address of this machine)",
  );
});
