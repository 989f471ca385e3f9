/**
 * The passwd lookup both sides share: the player's browser account (`accountIn`) and the
 * install's check (`hasOutputAccount`) read the same line.
 */
import assert from "node:assert/strict";
import { accountIn } from "../../player/output/browser_user.ts";
import { hasOutputAccount, OUTPUT_ACCOUNT, passwdEntry } from "../../lib/output_account.ts";

const PASSWD = [
  "root:x:0:0:root:/root:/bin/bash",
  "cueport-output-old:x:998:998::/nonexistent:/usr/sbin/nologin",
  `${OUTPUT_ACCOUNT}:x:999:997::/nonexistent:/usr/sbin/nologin`,
  "broken:x:abc:1::/:/bin/false",
].join("\n");

Deno.test("passwd: the line of the user named, not of one whose name begins alike", () => {
  assert.equal(passwdEntry(PASSWD, OUTPUT_ACCOUNT)?.[2], "999");
  assert.equal(passwdEntry(PASSWD, "nobody"), null);
  assert.equal(hasOutputAccount(PASSWD), true);
  assert.equal(hasOutputAccount("root:x:0:0::/:/bin/sh"), false);
  assert.deepEqual(accountIn(PASSWD, OUTPUT_ACCOUNT), { name: OUTPUT_ACCOUNT, uid: 999, gid: 997 });
  assert.equal(accountIn(PASSWD, "broken"), null, "no number");
  assert.equal(accountIn("", OUTPUT_ACCOUNT), null);
});
