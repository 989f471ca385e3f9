import assert from "node:assert/strict";
import { udpDropsIn } from "../../../tools/reliability/_osc_drops.ts";

const TABLE = [
  "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops            ",
  "15411: 0100007F:CCCF 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 3387061 2 00000000a2506d4b 17      ",
  "15412: 00000000:CCCF 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 3387062 2 00000000a2506d4c 3       ",
  "15413: 0200007F:0CCF 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 3387063 2 00000000a2506d4d 99      ",
].join("\n");

Deno.test("udpDropsIn() sums the kernel's drops at the sockets of one local port, and no other", () => {
  assert.equal(udpDropsIn(TABLE, 0xcccf), 20);
  assert.equal(udpDropsIn(TABLE, 0x0ccf), 99);
  assert.equal(udpDropsIn(TABLE, 9000), 0);
});
