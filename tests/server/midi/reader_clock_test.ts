import assert from "node:assert/strict";
import { PlayerReaderClock, type PlayerTimeSource } from "../../../server/midi/reader_clock.ts";
import type { ReaderClock } from "../../../server/midi/timecode.ts";
import { TimecodeReader, type TimecodeSample } from "../../../server/midi/timecode.ts";
import type { MidiMessage, MidiSource } from "../../../server/midi/messages.ts";

/** The read model's clock as the adapter sees it: a reading, moved by `set`, told to watchers. */
function playerClock(isClockVirtual = true) {
  const listeners = new Set<() => void>();
  let now = 1000;
  const source: PlayerTimeSource & { set(ms: number): void; watchers(): number } = {
    isClockVirtual,
    playerNow: () => now,
    watchClock: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set: (ms) => {
      now = ms;
      for (const listener of listeners) listener();
    },
    watchers: () => listeners.size,
  };
  return source;
}

Deno.test("PlayerReaderClock on a virtual clock: now() is the player's reading", () => {
  const source = playerClock();
  const clock = new PlayerReaderClock(source);
  assert.equal(clock.now(), 1000);
  source.set(1234);
  assert.equal(clock.now(), 1234);
  clock.close();
});

Deno.test("PlayerReaderClock fires timers when the player's clock reaches them, in order", () => {
  const source = playerClock();
  const clock = new PlayerReaderClock(source);
  const fired: string[] = [];
  clock.setTimer(1300, () => fired.push("c"));
  clock.setTimer(1100, () => fired.push("a"));
  clock.setTimer(1200, () => fired.push("b1"));
  clock.setTimer(1200, () => fired.push("b2"));
  source.set(1099);
  assert.deepEqual(fired, []);
  source.set(1250); // one reading past several timers fires them by time, equal ones as set
  assert.deepEqual(fired, ["a", "b1", "b2"]);
  source.set(1300);
  assert.deepEqual(fired, ["a", "b1", "b2", "c"]);
  source.set(5000);
  assert.equal(fired.length, 4, "each fires once");
  clock.close();
});

Deno.test("PlayerReaderClock never fires a cleared timer, even one a timer before it clears", () => {
  const source = playerClock();
  const clock = new PlayerReaderClock(source);
  const fired: string[] = [];
  const gone = clock.setTimer(1100, () => fired.push("gone"));
  let later: unknown = null;
  clock.setTimer(1150, () => {
    fired.push("first");
    clock.clearTimer(later);
  });
  later = clock.setTimer(1200, () => fired.push("later"));
  clock.clearTimer(gone);
  clock.clearTimer(gone); // twice: ignored
  source.set(2000);
  assert.deepEqual(fired, ["first"]);
  clock.close();
});

Deno.test("PlayerReaderClock fires a timer set already due soon after, not inside setTimer", async () => {
  const source = playerClock();
  const clock = new PlayerReaderClock(source);
  let fired = 0;
  clock.setTimer(900, () => fired++);
  assert.equal(fired, 0);
  await Promise.resolve();
  assert.equal(fired, 1);
  clock.close();
});

Deno.test("PlayerReaderClock on a real clock uses the real one; close stops watching", () => {
  const source = playerClock(false);
  const calls: string[] = [];
  const real: ReaderClock = {
    now: () => 42,
    setTimer: (at) => (calls.push(`set ${at}`), 7),
    clearTimer: (id) => calls.push(`clear ${id}`),
  };
  const clock = new PlayerReaderClock(source, real);
  assert.equal(clock.now(), 42);
  const id = clock.setTimer(100, () => calls.push("fired"));
  source.set(5000); // the player's readings do not fire real timers
  clock.clearTimer(id);
  assert.deepEqual(calls, ["set 100", "clear 7"]);
  assert.equal(source.watchers(), 1);
  clock.close();
  assert.equal(source.watchers(), 0);
});

Deno.test("TimecodeReader on the player's virtual clock: code sent as the clock moves reads whole", () => {
  const source = playerClock();
  const clock = new PlayerReaderClock(source);
  const samples: TimecodeSample[] = [];
  const reader = new TimecodeReader({ clock, send: (s) => samples.push(s) });
  const from: MidiSource = { kind: "rtp", address: "127.0.0.1:5004", name: "DAW" };
  // Two frames of 25 fps code a step, all eight pieces at once, the clock moved 80 ms after each.
  for (let step = 0; step < 5; step++) {
    const ff = step * 2;
    const nibbles = [ff & 15, ff >> 4, 2, 0, 0, 0, 1, 1 << 1];
    const messages: MidiMessage[] = nibbles.map((value, piece) => ({
      type: "quarterFrame",
      piece,
      value,
    }));
    reader.feed(messages, from);
    source.set(source.playerNow() + 80);
  }
  assert.deepEqual(samples.map((s) => s.motion), Array(5).fill("forward"), "none dropped");
  source.set(source.playerNow() + 169); // 249 ms after the last pieces
  assert.equal(samples.length, 5);
  source.set(source.playerNow() + 1);
  assert.equal(samples.at(-1)!.motion, "stopped");
  reader.close();
  clock.close();
});
