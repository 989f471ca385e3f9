import assert from "node:assert/strict";
import { runMain, startServiceProcess } from "../../tools/testing/service_process.ts";
import { folderProblem } from "../../server/startup.ts";

const freePorts = [
  "--http-port",
  "0",
  "--ws-port",
  "0",
  "--osc-port",
  "0",
  "--osc-query-port",
  "0",
  ...["--legacy-http-port", "off", "--legacy-ws-port", "off"],
];

Deno.test("a second instance on the same data dir refuses to start and names the running one", async () => {
  const first = await startServiceProcess();
  try {
    const second = await runMain(["--data-dir", first.dataDir, ...freePorts]);
    assert.equal(second.code, 1);
    const lines = second.stderr.trim().split("\n");
    assert.equal(lines.length, 1, second.stderr);
    assert.match(
      lines[0]!,
      new RegExp(`Another Cueport \\(pid ${first.ready.pid}, HTTP port ${first.ready.ports.http}`),
    );
    assert.match(lines[0]!, /--data-dir/);
    assert.equal((await first.get("/health")).status, 200, "the first one keeps serving");
  } finally {
    assert.equal(await first.stop(), 0);
  }
});

Deno.test("the lock of a killed instance does not stay stuck", async () => {
  const first = await startServiceProcess();
  try {
    first.child.kill("SIGKILL");
    await first.child.status;
    const again = await startServiceProcess(["--data-dir", first.dataDir]);
    assert.equal((await again.get("/health")).status, 200);
    assert.equal(await again.stop(), 0);
  } finally {
    await Deno.remove(first.dataDir, { recursive: true }).catch(() => {});
  }
});

Deno.test("a port in use is one line naming the setting, exit 1, no stack trace", async () => {
  const holder = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-inuse-" });
  try {
    const port = String((holder.addr as Deno.NetAddr).port);
    const run = await runMain(["--data-dir", dataDir, ...freePorts, "--http-port", port]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr.trim(),
      `cueport: The HTTP port ${port} is in use by another program: choose another with --http-port, CUEPORT_HTTP_PORT or "httpPort" in the config file`,
    );
    // Everything it started was stopped: the data dir can be used at once.
    const next = await startServiceProcess(["--data-dir", dataDir]);
    assert.equal(await next.stop(), 0);
  } finally {
    holder.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});

Deno.test("an address the machine lacks is one line naming --host, not the port; beside one that binds it is skipped with a warning", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-host-" });
  try {
    const cases = [
      ["no-such-host.invalid", "no name this machine can resolve"],
      ["192.0.2.1", "no address of this machine"], // TEST-NET-1: on no interface here
    ];
    for (const [host, why] of cases) {
      const run = await runMain(["--data-dir", dataDir, ...freePorts, "--host", host!]);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
      assert.match(
        run.stderr.trim(),
        new RegExp(
          `^cueport: The HTTP port 0 cannot be bound on ${host!.replaceAll(".", "\\.")}: ` +
            `${why} \\(.+\\): choose this machine's addresses with --host, CUEPORT_HOST or ` +
            `"host" in the config file$`,
        ),
      );
    }
    // A port in use is the port's fault even when an address before it is missing too.
    const holder = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const taken = String((holder.addr as Deno.NetAddr).port);
      const both = await runMain([
        "--data-dir",
        dataDir,
        ...freePorts,
        "--host",
        "192.0.2.1,127.0.0.1",
        "--http-port",
        taken,
      ]);
      assert.equal(both.code, 1, both.stderr);
      // (The OSC port, bound before it, said its skipped address at warn: a problem too.)
      const last = both.stderr.trimEnd().split("\n").at(-1)!;
      assert.match(last, new RegExp(`^cueport: The HTTP port ${taken} is in use`));
    } finally {
      holder.close();
    }
    // Beside an address that binds, one that cannot is skipped, and said at warn.
    const svc = await startServiceProcess(
      ["--host", "127.0.0.1,192.0.2.1", "--log-level", "warn"],
      {
        dataDir,
      },
    );
    try {
      assert.match(
        svc.stderr(),
        /WARN +HTTP: 192\.0\.2\.1 port \d+ not bound: no address of this machine \(Cannot assign requested address/,
      );
    } finally {
      assert.equal(await svc.stop(), 0);
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});

Deno.test({
  name: "a data dir in a system folder is one line with the reason, not Deno's --allow-all advice",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const run = await runMain(["--data-dir", "/proc/cueport", ...freePorts, "--mdns", "off"]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr.trim(),
      'cueport: Cannot use the data dir "/proc/cueport" (cannot create it: /proc is a system folder, closed to Cueport): choose another with --data-dir, CUEPORT_DATA_DIR or "dataDir" in the config file',
    );
  },
});

Deno.test("an unusable data dir and a bad setting are one line each", async () => {
  // A file where the data dir should be: unusable even for root, who reads any folder.
  const file = await Deno.makeTempFile({ prefix: "cueport-not-a-dir-" });
  try {
    const run = await runMain(["--data-dir", file, ...freePorts]);
    assert.equal(run.code, 1);
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    assert.match(run.stderr, /^cueport: Cannot use the data dir ".*" \(.*\): .*--data-dir/);
  } finally {
    await Deno.remove(file);
  }
  const bad = await runMain(["--ws-port", "http"]);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr.trim().split("\n").length, 1, bad.stderr);
  assert.match(bad.stderr, /Invalid setting wsPort \(--ws-port\)/);
});

Deno.test("folderProblem() tells a system folder from a folder that can be made writable", () => {
  const system = new Deno.errors.NotCapable(
    'Requires all access to "/proc/cueport", run again with the --allow-all flag',
  );
  assert.deepEqual(folderProblem(system), {
    reason: "cannot create it: /proc is a system folder, closed to Cueport",
    canMakeWritable: false,
  });
  const denied = new Deno.errors.PermissionDenied(
    "Permission denied (os error 13): mkdir '/srv/show'",
  );
  assert.deepEqual(folderProblem(denied), {
    reason: "Permission denied (os error 13): mkdir '/srv/show'",
    canMakeWritable: true,
  });
});
