import assert from "node:assert/strict";
import { SettingsQueue } from "../../../player/library/settings_queue.ts";

Deno.test("SettingsQueue: saves asked before a write starts are one write, of the state when it runs", async () => {
  let state = 1;
  const written: number[] = [];
  const queue = new SettingsQueue(() => {
    written.push(state);
    return Promise.resolve();
  }, (message) => assert.fail(message));
  queue.save();
  state = 2;
  queue.save();
  state = 3;
  queue.save();
  await queue.saved();
  assert.deepEqual(written, [3]);
  queue.save();
  await queue.saved();
  assert.deepEqual(written, [3, 3]);
});

Deno.test("SettingsQueue: a failed write is logged and the next save still writes", async () => {
  const logged: string[] = [];
  let fail = true;
  let writes = 0;
  const queue = new SettingsQueue(() => {
    writes++;
    return fail ? Promise.reject(new Error("disk full")) : Promise.resolve();
  }, (message) => logged.push(message));
  queue.save();
  await queue.saved();
  assert.deepEqual(logged, ["Cannot save settings: disk full"]);
  fail = false;
  queue.save();
  await queue.saved();
  assert.equal(writes, 2);
  assert.equal(logged.length, 1);
});
