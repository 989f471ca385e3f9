import assert from "node:assert/strict";
import { listeners, profileDirs } from "../../../tools/reliability/_process_tree.ts";
import { HANG_SHADERS } from "../../../tools/reliability/shader_hang.ts";
import { BIG_SHADER, MOST_WORK_SHADER } from "../../../tools/reliability/check_memory.ts";
import { LARGEST_PRESET } from "../../../tools/reliability/texture_budget.ts";
import { parseIsf } from "../../../player/isf/parse.ts";

const TCP =
  `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:9ACB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1005958 1 0000000000000000 100 0 0 10 0
   1: 0200007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 42 1 0000000000000000 100 0 0 10 0
   2: 0100007F:9ACB 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 1005999 1 0000000000000000 20 4 30 10 -1
   3: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1531 1 0000000000000000 100 0 0 10 0`;
const TCP6 =
  `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 77 1 0000000000000000 100 0 0 10 0`;

Deno.test("listeners() reads the listening sockets of /proc/net/tcp and tcp6, with owner and inode", () => {
  assert.deepEqual(listeners({ tcp: TCP, tcp6: TCP6 }), [
    { address: "127.0.0.1", port: 39627, inode: 1005958, uid: 0 },
    { address: "127.0.0.2", port: 8080, inode: 42, uid: 1000 },
    { address: "0.0.0.0", port: 2024, inode: 1531, uid: 0 },
    { address: "::1", port: 8081, inode: 77, uid: 0 },
  ]);
});

Deno.test("profileDirs() names each browser profile dir once", () => {
  const row = (pid: number, args: string) => ({ pid, ppid: 1, comm: "chromium", args });
  assert.deepEqual(
    profileDirs([
      row(1, "/usr/lib/chromium/chromium --user-data-dir=/tmp/cueport-output-a --headless=new"),
      row(2, "/usr/lib/chromium/chromium --type=renderer --user-data-dir=/tmp/cueport-output-a"),
      row(3, "/usr/lib/chromium/chromium --type=zygote"),
    ]),
    ["/tmp/cueport-output-a"],
  );
});

// The probes must attack with what the edit takes: a shader refused by the checks proves nothing.
// (The endless loop may be refused at the edit once loops are bounded; shader_hang notes that.)
Deno.test("the probes' shaders pass the edit's checks as Effects; the 200 KB one is cut at its bound", () => {
  const tenMillion = HANG_SHADERS.find((s) => s.name === "10^7 iterations")!;
  assert.equal(parseIsf(tenMillion.code, "effect").ok, true, "10^7 iterations");
  assert.equal(parseIsf(MOST_WORK_SHADER, "effect").ok, true, "the most work");
  assert.equal(parseIsf(LARGEST_PRESET, "effect").ok, true, "the largest preset");
  assert.ok(BIG_SHADER.length > 190_000 && BIG_SHADER.length <= 200_000);
  const big = parseIsf(BIG_SHADER, "effect");
  assert.equal(big.ok, false);
});
