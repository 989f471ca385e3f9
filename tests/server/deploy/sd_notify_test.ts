import assert from "node:assert/strict";
import { notifyTarget, SystemdNotifier } from "../../../server/deploy/sd_notify.ts";
import { until } from "../../../tools/testing/until.ts";

Deno.test("notifyTarget() reads NOTIFY_SOCKET and the watchdog meant for this process", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(notifyTarget(env({})), null);
  assert.deepEqual(notifyTarget(env({ NOTIFY_SOCKET: "/run/n" }), 7), {
    socket: "/run/n",
    watchdogIntervalMs: null,
  });
  const watched = { NOTIFY_SOCKET: "/run/n", WATCHDOG_USEC: "30000000" };
  assert.equal(notifyTarget(env(watched), 7)?.watchdogIntervalMs, 15_000);
  assert.equal(notifyTarget(env({ ...watched, WATCHDOG_PID: "7" }), 7)?.watchdogIntervalMs, 15_000);
  assert.equal(notifyTarget(env({ ...watched, WATCHDOG_PID: "8" }), 7)?.watchdogIntervalMs, null);
});

Deno.test({
  name: "sd_notify sends READY=1, watchdog pings and STOPPING=1 to the notify socket",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir();
    const socket = `${dir}/notify`;
    const listener = Deno.listenDatagram({ transport: "unixpacket", path: socket });
    const received: string[] = [];
    const reading = (async () => {
      try {
        for await (const [data] of listener) received.push(new TextDecoder().decode(data));
      } catch { /* closed */ }
    })();
    const problems: string[] = [];
    const notifier = new SystemdNotifier(
      { socket, watchdogIntervalMs: 20 },
      (m) => problems.push(m),
    );
    try {
      await notifier.ready("Ready");
      await until("READY=1", () => received.length > 0);
      assert.equal(received[0], `READY=1\nSTATUS=Ready\nMAINPID=${Deno.pid}`);
      await until("a watchdog ping", () => received.includes("WATCHDOG=1"));
      await notifier.stopping();
      await until("STOPPING=1", () => received.includes("STOPPING=1"));
      assert.deepEqual(problems, []);
    } finally {
      notifier.close();
      listener.close();
      await reading;
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("sd_notify to a missing socket logs and goes on", async () => {
  const problems: string[] = [];
  const notifier = new SystemdNotifier(
    { socket: "/nonexistent/notify", watchdogIntervalMs: null },
    (m) => problems.push(m),
  );
  try {
    assert.equal(await notifier.notify("READY=1"), false);
    assert.match(problems[0]!, /sd_notify to \/nonexistent\/notify failed/);
    assert.equal(
      await new SystemdNotifier(
        { socket: "@abstract", watchdogIntervalMs: null },
        (m) => problems.push(m),
      ).notify("READY=1"),
      false,
    );
    assert.match(problems[1]!, /abstract/);
  } finally {
    notifier.close();
  }
});
