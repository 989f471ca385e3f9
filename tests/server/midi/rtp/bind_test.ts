/**
 * Network MIDI on every interface, as a default start binds it (`::` and `0.0.0.0`): where the
 * `::` socket is dual-stack it serves IPv4 too, so the IPv4 socket's "address in use" is the
 * expected skip that the TCP and OSC ports log at debug, never a warning on every start.
 */
import assert from "node:assert/strict";
import { RtpMidiNetwork } from "../../../../server/midi/rtp/mod.ts";

/** Whether this machine's `::` UDP sockets take IPv4 too (Linux: `net.ipv6.bindv6only` 0). */
function isDualStack(): boolean {
  let v6: Deno.DatagramConn;
  try {
    v6 = Deno.listenDatagram({ transport: "udp", hostname: "::", port: 0 });
  } catch {
    return false; // no IPv6
  }
  try {
    const { port } = v6.addr as Deno.NetAddr;
    Deno.listenDatagram({ transport: "udp", hostname: "0.0.0.0", port }).close();
    return false;
  } catch (error) {
    return error instanceof Deno.errors.AddrInUse;
  } finally {
    v6.close();
  }
}

Deno.test({
  name: "network MIDI on :: and 0.0.0.0: the IPv4 port a dual-stack :: socket serves is no warning",
  ignore: !isDualStack(),
  fn: async () => {
    const logged: Array<{ level: string; message: string }> = [];
    const network = new RtpMidiNetwork({
      port: 0,
      hosts: ["::", "0.0.0.0"],
      log: (level, message) => logged.push({ level, message }),
    });
    network.start();
    try {
      // Port 0: a pair is looked for, so an odd control port tried first adds a skip of its own.
      const skipped = logged.filter((l) => /0\.0\.0\.0 port \d+ not bound/.test(l.message));
      const all = JSON.stringify(logged);
      assert.ok(skipped.length >= 2, `the IPv4 control and data ports skipped: ${all}`);
      assert.ok(skipped.every((l) => l.level === "debug"), `each skip at debug: ${all}`);
      assert.deepEqual(logged.filter((l) => l.level === "warn"), []);
    } finally {
      await network.close();
    }
  },
});
