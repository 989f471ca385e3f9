/**
 * The Companion module's output preview as a unit (`integrations/companion/src/preview.ts`
 * imports nothing): a fake service, fetches counted, ended by hand.
 */
import assert from "node:assert/strict";
import { OutputPreview } from "../../../integrations/companion/src/preview.ts";

function fakeHost() {
  const pending: Array<(picture: string) => void> = [];
  return {
    pending,
    fetches: [] as number[],
    host: {
      fetchFrame(size: number): Promise<string> {
        this.fetches.push(size);
        return new Promise<string>((resolve) => pending.push(resolve));
      },
      fetches: [] as number[],
      sizes: { min: 16, max: 512 },
      redraw: () => {},
      log: () => {},
    },
  };
}

Deno.test("OutputPreview.close() during a fetch: no timer, no fetch again, the keys forgotten", async () => {
  const { host, pending } = fakeHost();
  const preview = new OutputPreview(host);
  preview.use("key", 250, 72, 72);
  assert.deepEqual(host.fetches, [72]);
  preview.close();
  assert.equal(preview.keyCount, 0);
  pending.shift()!("picture");
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(preview.isPolling, false, "a fetch in flight at close() sets no timer");
  preview.use("key", 250, 72, 72);
  assert.deepEqual(host.fetches, [72], "closed: nothing fetched again");
});

Deno.test("OutputPreview: the last key released during a fetch stops the polling", async () => {
  const { host, pending } = fakeHost();
  const preview = new OutputPreview(host);
  preview.use("a", 250, 96, 54);
  preview.release("a");
  pending.shift()!("picture");
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(preview.isPolling, false);
  assert.deepEqual(host.fetches, [96]);
});
