import assert from "node:assert/strict";
import {
  type Ancestor,
  isAlive,
  launchersOf,
  watchLaunchers,
} from "../../../server/deploy/launcher_watch.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { until } from "../../../tools/testing/until.ts";

const a = (pid: number, args: string): Ancestor => ({ pid, ppid: pid - 1, args });

Deno.test("launchersOf() takes deno task, npm exec and the sh -c between them, up to the user's shell", () => {
  const npx = [
    a(40, "deno task start --data-dir /tmp/show"),
    a(39, "sh -c 'deno' task start --data-dir /tmp/show"),
    a(38, "npm exec deno@2.9.6 task start --data-dir /tmp/show"),
    a(37, "bash ./show.sh"),
    a(2, "sshd: root@pts/0"),
  ];
  assert.deepEqual(launchersOf(npx).map((l) => l.pid), [40, 39, 38]);
  assert.deepEqual(
    launchersOf([a(50, "/usr/local/bin/deno task start"), a(49, "-bash")]).map((l) => l.pid),
    [50],
  );
  assert.deepEqual(
    launchersOf([a(60, "node /usr/bin/npx deno task start"), a(59, "bash")]).map((l) => l.pid),
    [60],
  );
});

Deno.test("launchersOf() watches nothing under systemd, a shell or a plain sh -c", () => {
  assert.deepEqual(launchersOf([a(1, "/sbin/init")]), []);
  assert.deepEqual(launchersOf([a(70, "-bash"), a(69, "sshd: root@pts/0")]), []);
  assert.deepEqual(launchersOf([a(80, "sh -c cueport"), a(79, "supervisord")]), []);
  assert.deepEqual(launchersOf([a(90, "/usr/bin/python3 run_show.py deno task")]), []);
});

Deno.test("watchLaunchers() calls onGone once when a launcher or the parent link is gone", async () => {
  const alive = new Set([10, 11]);
  let parent = 10;
  const gone: number[] = [];
  const watch = watchLaunchers([a(10, "deno task start"), a(11, "npm exec")], (l) => {
    gone.push(l.pid);
  }, { intervalMs: 5, alive: (pid) => alive.has(pid), ppid: () => parent });
  try {
    alive.delete(11);
    await until("the launcher seen gone", () => gone.length > 0);
    assert.deepEqual(gone, [11]);
  } finally {
    watch.stop();
  }
  const reparented: number[] = [];
  alive.add(11);
  parent = 1; // the parent died and this process was given to init
  const again = watchLaunchers([a(10, "deno task start")], (l) => reparented.push(l.pid), {
    intervalMs: 5,
    alive: () => true,
    ppid: () => parent,
  });
  await until("the lost parent seen", () => reparented.length > 0);
  again.stop();
  assert.deepEqual(reparented, [10]);
});

Deno.test({
  name: "a service under deno task stops cleanly when deno task is killed",
  ignore: Deno.build.os === "windows" || needs("ps").ignore,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "cueport-orphan-" });
    const config = new URL("../../../deno.json", import.meta.url).pathname;
    const task = new Deno.Command(Deno.execPath(), {
      args: [
        ...["task", "--config", config, "start", "--data-dir", dataDir, "--host", "127.0.0.1"],
        ...["--http-port", "0", "--ws-port", "0", "--osc-port", "0", "--osc-query-port", "0"],
        ...["--legacy-http-port", "off", "--legacy-ws-port", "off", "--mdns", "off"],
      ],
      stdout: "piped",
      stderr: "piped",
      env: { RUST_BACKTRACE: "", NO_COLOR: "1" },
    }).spawn();
    let errText = "";
    const errDone = (async () => {
      for await (const chunk of task.stderr.pipeThrough(new TextDecoderStream())) errText += chunk;
    })();
    try {
      const reader = task.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let out = "";
      while (!out.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`Exited before ready: ${errText}`);
        out += value;
      }
      const ready = JSON.parse(out.slice(0, out.indexOf("\n")));
      assert.ok(isAlive(ready.pid));
      task.kill("SIGKILL"); // deno task gone without passing anything on
      await until("the orphaned service to stop", () => !isAlive(ready.pid), 10_000)
        .catch((e) => {
          throw new Error(`${e.message}: ${errText}`);
        });
      await reader.cancel().catch(() => {});
      await errDone;
      assert.match(
        errText,
        /The process that started Cueport is gone: deno task --config \.\.\. \(pid \d+\)/,
      );
      assert.match(errText, /Stopped/);
      // Its lock and ports are free: a new service takes the same data dir at once.
      const lock = await Deno.open(`${dataDir}/cueport.lock`, { read: true });
      assert.ok(await lock.tryLock(true), "the data dir's lock was released");
      lock.close();
    } finally {
      try {
        task.kill("SIGKILL");
      } catch { /* gone */ }
      await task.status;
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
