import assert from "node:assert/strict";
import { receiveBufferAdvice, receiveBufferBytes } from "../../../server/osc/receive_buffer.ts";

Deno.test("a small UDP receive buffer is reported at start with the command that raises it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/rmem_default`, "212992\n");
    const bytes = receiveBufferBytes(`${dir}/rmem_default`);
    assert.equal(bytes, 212992);
    assert.match(receiveBufferAdvice(bytes)!, /208 KiB.*sysctl -w net.core.rmem_default=4194304/);
    assert.equal(receiveBufferAdvice(4 * 1024 * 1024), null, "enough: nothing said");
    assert.equal(receiveBufferBytes(`${dir}/missing`), null);
    assert.equal(receiveBufferAdvice(null), null, "unknown (not Linux): nothing said");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
