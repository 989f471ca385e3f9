/**
 * Issue 42: a reliability row fails when a figure its run committed it to is missing, and when
 * the service received nothing of what the probe sent (nothing exercised).
 */
import assert from "node:assert/strict";
import { missedTargets, type ProbeResult } from "../../../tools/reliability/mod.ts";
import {
  countReceived,
  requireFigures,
  rowFigures,
  sentAndReceived,
  SERVICE_FIGURES,
} from "../../../tools/reliability/_figures.ts";
import { ServiceRun } from "../../../tools/reliability/_harness.ts";
import { Tally } from "../../../tools/reliability/_tally.ts";
import { unreachedShortfall } from "../../../tools/reliability/show_kill.ts";
import { isFuzzAnswer } from "../../../tools/reliability/ws_fuzz.ts";

/** The row `runProbes` makes of `tally` for a probe that declares `declared`. */
function rowOf(tally: Tally, declared: ProbeResult["figures"] = []): ProbeResult {
  return { ...tally.result("example", 1), ...rowFigures(tally, declared) };
}

Deno.test("a row lacking a figure the harness measures (both peak RSS, the local p99) is missed", () => {
  const tally = new Tally();
  tally.inputs = 1;
  assert.deepEqual(missedTargets(rowOf(tally)), [], "nothing required: nothing missing");
  requireFigures(tally, SERVICE_FIGURES);
  assert.deepEqual(missedTargets(rowOf(tally)), [
    "the service's peak RSS not measured",
    "the player's peak RSS not measured",
    "the local p99 (no /health answered) not measured",
  ]);
  tally.memory.record("service", { rss: 80 * 1024, hwm: 80 * 1024 });
  tally.memory.record("player", { rss: 90 * 1024, hwm: 90 * 1024 });
  tally.localMs.push(3);
  assert.deepEqual(missedTargets(rowOf(tally)), []);
  // A probe's own declared figures add to them, each once.
  assert.deepEqual(rowOf(tally, ["playerRss", "acked"]).figures, [
    "playerRss",
    "acked",
    "serviceRss",
    "localP99",
  ]);
});

Deno.test("a row that sent no input is missed, whatever else it reports: nothing was exercised", () => {
  const tally = new Tally();
  tally.localServed = true;
  tally.localMs.push(3);
  assert.deepEqual(missedTargets(rowOf(tally)), ["0 inputs sent: nothing was exercised"]);
  tally.inputs = 1;
  assert.deepEqual(missedTargets(rowOf(tally)), []);
  // A probe that could not run says why instead.
  const notRun = { ...rowOf(new Tally()), notRun: "no root" };
  assert.deepEqual(missedTargets(notRun), ["not run: no root"]);
});

Deno.test("local clients served: unknown until measured, and one failure is kept", () => {
  const tally = new Tally();
  tally.inputs = 1;
  assert.equal(tally.localServed, null, "nothing measured: no figure");
  assert.deepEqual(missedTargets(rowOf(tally, ["localServed"])), [
    "whether local clients were served not measured",
  ]);
  tally.served(true);
  assert.equal(tally.localServed, true);
  tally.served(false);
  tally.served(true);
  assert.equal(tally.localServed, false, "a later success does not hide a failure");
  assert.deepEqual(missedTargets(rowOf(tally, ["localServed"])), [
    "local clients not served throughout",
  ]);
});

Deno.test("a row whose service received none of the inputs sent is missed: nothing exercised", () => {
  const tally = new Tally();
  tally.inputs = 20_000;
  requireFigures(tally, ["received"]);
  assert.deepEqual(missedTargets(rowOf(tally)), ["what the service received not measured"]);
  countReceived(tally, 0);
  assert.deepEqual(missedTargets(rowOf(tally)), [
    "0 received by the service of 20000 inputs sent: nothing was exercised",
  ]);
  // Nothing sent (a deadline spent before the service was up), whatever the service counted.
  const idle = new Tally();
  countReceived(idle, 1);
  assert.deepEqual(missedTargets(rowOf(idle)), [
    "1 received by the service of 0 inputs sent: nothing was exercised",
  ]);
  countReceived(tally, 19_950);
  assert.equal(rowOf(tally).received, 19_950);
  assert.deepEqual(missedTargets(rowOf(tally)), []);
});

Deno.test("sentAndReceived() is the note of what a probe sent and the service received", () => {
  const tally = new Tally();
  assert.equal(sentAndReceived(tally), null, "a probe that does not count it says nothing");
  tally.inputs = 800;
  requireFigures(tally, ["received"]);
  assert.equal(sentAndReceived(tally), "800 input(s) sent; received by the service: not measured");
  countReceived(tally, 136);
  assert.equal(sentAndReceived(tally), "800 input(s) sent; received by the service: 136");
});

Deno.test("the harness requires the figures it measures of every service it starts", async () => {
  const tally = new Tally();
  tally.inputs = 1; // so the row says only its figures
  const run = await ServiceRun.start(tally);
  await run.finish();
  const row = rowOf(tally);
  assert.deepEqual(row.figures, [...SERVICE_FIGURES]);
  // The watch measured them: a service started and stopped at once still has its figures.
  assert.deepEqual(missedTargets(row), []);
});

Deno.test("show_kill: no kill at its point is missed; one is enough", () => {
  assert.equal(
    unreachedShortfall(0, 3),
    "0 of 3 kill(s) reached their point (each operation was done first): nothing was tested",
  );
  assert.equal(unreachedShortfall(1, 3), null);
});

Deno.test("ws_fuzz counts the service's answers to fuzzed messages, not its own auth, pings or events", () => {
  assert.equal(isFuzzAnswer('{"type":"response","id":"m3","data":{}}'), true);
  assert.equal(isFuzzAnswer('{"type":"error","id":null,"error":{"code":"INVALID_MESSAGE"}}'), true);
  assert.equal(isFuzzAnswer('{"type":"response","id":"auth","data":{}}'), false);
  assert.equal(isFuzzAnswer('{"type":"response","id":"probe-12","data":{"pong":true}}'), false);
  assert.equal(isFuzzAnswer('{"type":"event","event":"state-update","seq":1}'), false);
});
