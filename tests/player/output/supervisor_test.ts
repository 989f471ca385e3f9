import assert from "node:assert/strict";
import { BrowserSupervisor } from "../../../player/output/supervisor.ts";
import { until, untilProgress } from "../../_helpers/until.ts";

Deno.test({
  name:
    "BrowserSupervisor starts an exiting browser again at once, then backs off, and stops spamming",
  sanitizeOps: false,
  async fn() {
    const lines: string[] = [];
    // `false` stands for a browser that cannot open its window: it exits 1 at once.
    const supervisor = new BrowserSupervisor({
      program: "false",
      mode: "window",
      url: "http://127.0.0.1:9/x/",
      width: 640,
      height: 360,
      log: (_level, message) => lines.push(message),
    });
    supervisor.start();
    try {
      // Each exit is progress: a busy machine starts `false` slowly, not never.
      await untilProgress("five exits", () => lines.length >= 5, { progress: () => lines.length });
      assert.deepEqual(lines.map((l) => /again in (\d+) ms|every (\d+) s/.exec(l)?.slice(1)), [
        ["0", undefined],
        ["250", undefined],
        ["500", undefined],
        ["1000", undefined],
        [undefined, "30"],
      ]);
      assert.match(lines[4]!, /exited 5 times without showing the page: trying again every 30 s/);
    } finally {
      await supervisor.close();
    }
  },
});

/**
 * A supervisor of a stand-in browser, started: started by the supervisor (with its DevTools
 * port) it runs until killed; started to hand an address to the running one, it does what
 * `handoff` says.
 */
async function supervising(handoff: string) {
  const dir = await Deno.makeTempDir({ prefix: "cueport-fake-browser-" });
  const program = `${dir}/browser`;
  await Deno.writeTextFile(
    program,
    `#!/bin/sh\ncase "$*" in *--remote-debugging-port=*) ;; *) ${handoff};; esac\nexec sleep 600\n`,
  );
  await Deno.chmod(program, 0o755);
  const lines: string[] = [];
  const supervisor = new BrowserSupervisor({
    program,
    mode: "window",
    url: "http://127.0.0.1:9/x/",
    width: 640,
    height: 360,
    log: (_level, message) => lines.push(message),
  });
  supervisor.start();
  const close = async () => {
    await supervisor.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { supervisor, lines, close };
}

Deno.test({
  name: "BrowserSupervisor: a handoff that fails says how its browser exited",
  sanitizeOps: false,
  async fn() {
    const { supervisor, lines, close } = await supervising("exit 3");
    try {
      assert.equal(await supervisor.openAppWindow("http://127.0.0.1:9/x/editor.html"), false);
      assert.deepEqual(lines, [
        "The output browser started to open http://127.0.0.1:9/x/editor.html did not hand it " +
        "to the running one (code 3)",
      ]);
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: "BrowserSupervisor.close stops a handoff under way (it would be a browser of its own)",
  sanitizeOps: false,
  async fn() {
    const { supervisor, close } = await supervising("exec sleep 600");
    const handoff = supervisor.openAppWindow("http://127.0.0.1:9/x/");
    await until("the handoff's browser to run", () => supervisor.handoffs > 0);
    await close();
    assert.equal(supervisor.handoffs, 0, "close returned with the handoff's browser running");
    assert.equal(await handoff, false);
  },
});
