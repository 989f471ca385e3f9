import assert from "node:assert/strict";
import { ask } from "../../../tools/testing/devtools.ts";
import { BrowserSupervisor } from "../../../player/output/supervisor.ts";
import { browserEnv } from "../../../player/output/browser_process.ts";
import { ProfileDirs } from "../../../player/output/profiles.ts";
import type { DevTools } from "../../../player/output/devtools.ts";
import { CHROMIUM } from "../../../tools/testing/browser.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { until, untilProgress } from "../../../tools/testing/until.ts";

/** Profiles under a temp parent of this test's own. */
async function testProfiles(): Promise<{ profiles: ProfileDirs; remove(): Promise<void> }> {
  const root = await Deno.makeTempDir({ prefix: "cueport-sup-" });
  const profiles = new ProfileDirs(`${root}/p`, (await Deno.stat(root)).uid!);
  return { profiles, remove: () => Deno.remove(root, { recursive: true }) };
}

Deno.test({
  name:
    "BrowserSupervisor starts an exiting browser again at once, then backs off, and stops spamming",
  sanitizeOps: false,
  async fn() {
    const lines: string[] = [];
    const { profiles, remove } = await testProfiles();
    // `false` stands for a browser that cannot open its window: it exits 1 at once.
    const supervisor = new BrowserSupervisor({
      profiles,
      runner: { kind: "self" },
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
      await remove();
    }
  },
});

Deno.test({
  name: "BrowserSupervisor: a browser that finds no sandbox runs without it, said once",
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "cueport-fake-browser-" });
    const program = `${dir}/browser`;
    // Chromium's words where user namespaces are off; with --no-sandbox it runs.
    await Deno.writeTextFile(
      program,
      `#!/bin/sh\ncase "$*" in *--no-sandbox*) exec sleep 600;; esac\n` +
        `echo "[1:1:FATAL:zygote_host_impl_linux.cc(128)] No usable sandbox! ..." >&2\nexit 1\n`,
    );
    await Deno.chmod(program, 0o755);
    const { profiles, remove } = await testProfiles();
    const lines: string[] = [];
    const supervisor = new BrowserSupervisor({
      profiles,
      runner: { kind: "self" },
      program,
      mode: "headless",
      url: "http://127.0.0.1:9/x/",
      width: 640,
      height: 360,
      log: (level, message) => lines.push(`${level}: ${message}`),
    });
    supervisor.start();
    try {
      await until("the browser without its sandbox", () => supervisor.starts === 2);
      assert.equal(supervisor.isSandboxOff, true);
      const said = lines.filter((l) => /sandbox cannot run/.test(l));
      assert.equal(said.length, 1, lines.join("\n"));
      assert.match(said[0]!, /^error: .*No usable sandbox.*the player's own account/);
      assert.ok(!lines.some((l) => /exited/.test(l)), "not counted as a crash");
    } finally {
      await supervisor.close();
      await remove();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("BrowserSupervisor: refused (root without the browser's user), says why once", async () => {
  const { profiles, remove } = await testProfiles();
  const lines: string[] = [];
  const supervisor = new BrowserSupervisor({
    profiles,
    runner: { kind: "refused", reason: "no user" },
    program: "/bin/true",
    mode: "headless",
    url: "http://127.0.0.1:9/x/",
    width: 640,
    height: 360,
    log: (level, message) => lines.push(`${level}: ${message}`),
  });
  supervisor.start();
  supervisor.start();
  assert.equal(supervisor.starts, 0);
  assert.deepEqual(lines, ["error: Output: no browser: no user"]);
  await supervisor.close();
  await remove();
});

/** A page that shows in its title what the start script left (`window.given`). */
function servePage(): { url: string; close(): Promise<void> } {
  const html = "<script>document.title = 'given:' + globalThis.given</script>";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(html, { headers: { "content-type": "text/html" } }),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/secret-path/`,
    close: () => server.shutdown(),
  };
}

async function titles(devtools: DevTools): Promise<string[]> {
  const { targetInfos } = await ask<{ targetInfos: { type: string; title: string }[] }>(
    devtools,
    "Target.getTargets",
  );
  return targetInfos.filter((t) => t.type === "page").map((t) => t.title);
}

Deno.test({
  ...needs("chromium"),
  name: "BrowserSupervisor gives every page its start script, asked at each start, over the pipe",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const page = servePage();
    let asked = 0;
    const supervisor = new BrowserSupervisor({
      program: CHROMIUM,
      mode: "headless",
      url: page.url,
      width: 640,
      height: 360,
      log: () => {},
      initScript: () => `globalThis.given = "start ${++asked}"`,
    });
    supervisor.start();
    try {
      let devtools = await supervisor.whenRunning(60_000);
      await until("the page with the script", async () => {
        return (await titles(devtools)).includes("given:start 1");
      }, 60_000);
      // Its temp files are its profile's (`browserEnv`): the singleton's socket folder, which a
      // killed browser leaves behind, goes with the profile rather than stay in /tmp.
      const profile = supervisor.profileDir!;
      const socket = Deno.readLinkSync(`${profile}/SingletonSocket`);
      assert.ok(socket.startsWith(`${profile}/.tmp/org.chromium.Chromium.`), socket);
      // A page opened later (the editor's window) gets it too, before its own scripts.
      await supervisor.openPage(`${page.url}editor.html`, { newWindow: true });
      await until("the second page", async () => {
        return (await titles(devtools)).filter((t) => t === "given:start 1").length === 2;
      }, 60_000);
      const pid = supervisor.pid;
      supervisor.restart();
      await until("a new browser", () => supervisor.devtools !== null && supervisor.pid !== pid);
      devtools = supervisor.devtools!;
      await until("the new browser's page, with the script asked again", async () => {
        return (await titles(devtools)).includes("given:start 2");
      }, 60_000);
      assert.equal(asked, 2);
    } finally {
      await supervisor.close();
      await page.close();
    }
  },
});

Deno.test("browserEnv(): the browser's temp folder is in its profile, where a socket's path fits", () => {
  const env = browserEnv("/tmp/cueport-output.0/profile-0123456789abc", true);
  assert.equal(env.TMPDIR, "/tmp/cueport-output.0/profile-0123456789abc/.tmp");
  assert.equal(env.HOME, "/tmp/cueport-output.0/profile-0123456789abc");
  // Chromium's singleton socket is 45 characters below TMPDIR: past 104 bytes (macOS) it could
  // not bind, and the browser would not start. Such a profile keeps the system's temp folder.
  const long = `/var/folders/xy/${"z".repeat(40)}/T/cueport-output.501/profile-0123456789abc`;
  assert.equal(browserEnv(long, false).TMPDIR, undefined);
});
