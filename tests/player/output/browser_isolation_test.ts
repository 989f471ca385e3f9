/**
 * The output's browser seen from outside its player, with the real service
 * and its player process (headless output): no DevTools port, the page's
 * address on no command line, an account that is not root, and nothing left
 * after a `kill -9` of the player (its browser ends with its pipe; its
 * profile goes at the next start). The tests may not read /proc themselves:
 * `ps`, and programs run as uid 65534 (`setpriv`), look for them.
 */
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import { startServiceProcess } from "../../../tools/testing/service_process.ts";
import { until } from "../../../tools/testing/until.ts";
import { OPERATOR_TOKEN_FILE } from "../../../server/auth/operator.ts";
import { OUTPUT_ACCOUNT } from "../../../lib/output_account.ts";

/** One process as `ps` shows it. */
interface Proc {
  pid: number;
  ppid: number;
  user: string;
  args: string;
}

async function processes(): Promise<Proc[]> {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid=,ppid=,user:32=,args="] })
    .output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l.trim()).map((l) => {
    const [pid, ppid, user, ...args] = l.trim().split(/\s+/);
    return { pid: Number(pid), ppid: Number(ppid), user: user!, args: args.join(" ") };
  });
}

function descendants(all: Proc[], pid: number): Proc[] {
  const direct = all.filter((p) => p.ppid === pid);
  return [...direct, ...direct.flatMap((p) => descendants(all, p.pid))];
}

/** The profile the browser of the player `pid` runs on, once it runs. */
async function browserProfile(playerPid: number): Promise<string> {
  let profile = "";
  await until("the player's browser", async () => {
    const browser = descendants(await processes(), playerPid)
      .find((p) => /--user-data-dir=/.test(p.args) && !/--type=/.test(p.args));
    profile = /--user-data-dir=(\S+)/.exec(browser?.args ?? "")?.[1] ?? "";
    return profile !== "";
  }, 120_000);
  return profile;
}

/** Runs `script` in `sh` as uid and gid 65534 with no other groups: its output. */
async function asNobody(script: string): Promise<string> {
  const out = await new Deno.Command("setpriv", {
    args: ["--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
}

/**
 * The TCP sockets listening on this machine (`/proc/net/tcp*`) that processes `pids` hold:
 * `listening:<port>` lines (read by `sh` as root: the tests may not read /proc).
 */
async function listeningOf(pids: number[]): Promise<string> {
  const script = `
inodes=$(for pid in ${pids.join(" ")}; do ls -l /proc/$pid/fd 2>/dev/null; done |
  sed -n 's/.*socket:\\[\\([0-9]*\\)\\]/\\1/p' | sort -u)
for inode in $inodes; do
  awk -v i="$inode" 'NR > 1 && $4 == "0A" && $10 == i { print "listening:" $2 }' /proc/net/tcp /proc/net/tcp6
done
echo "scanned $(echo $inodes | wc -w) sockets"`;
  const out = await new Deno.Command("sh", { args: ["-c", script], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Whether the tests run as root (`Deno.uid` is not granted to them). */
async function isRoot(): Promise<boolean> {
  const file = await Deno.makeTempFile();
  try {
    return (await Deno.stat(file)).uid === 0;
  } finally {
    await Deno.remove(file);
  }
}

async function playerOf(servicePid: number): Promise<number> {
  let pid = 0;
  await until("the player process", async () => {
    pid = (await processes()).find((p) => p.ppid === servicePid && / player/.test(p.args))?.pid ??
      0;
    return pid !== 0;
  }, 60_000);
  return pid;
}

/** The processes whose command line names `profile`. */
async function named(profile: string): Promise<Proc[]> {
  return (await processes()).filter((p) => p.args.includes(profile));
}

/** The player of the service `servicePid` and its browser's profile, once its pages run. */
async function runningBrowser(servicePid: number): Promise<{ player: number; profile: string }> {
  const player = await playerOf(servicePid);
  const profile = await browserProfile(player);
  await until("the browser's helpers", async () => {
    return (await named(profile)).some((p) => /--type=renderer/.test(p.args));
  }, 120_000);
  return { player, profile };
}

Deno.test({
  ...needs("chromium", "ps"),
  name: "The output browser: no DevTools port, no address or token on a command line, not root",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const service = await startServiceProcess(["--output", "headless", "--virtual-clock"]);
    try {
      const { profile } = await runningBrowser(service.child.pid);
      const browser = await named(profile);
      for (const p of browser) {
        assert.ok(!p.args.includes("--no-sandbox"), `sandboxed: ${p.args}`);
        assert.ok(!/--remote-debugging-(port|address)/.test(p.args), `no port: ${p.args}`);
        if (await isRoot()) assert.equal(p.user, OUTPUT_ACCOUNT, `not root: ${p.args}`);
      }
      // No secret on any command line of the service, its player, its browser and helpers.
      const token = (await Deno.readTextFile(`${service.dataDir}/${OPERATOR_TOKEN_FILE}`)).trim();
      const all = [
        ...(await processes()).filter((p) => p.pid === service.child.pid),
        ...descendants(await processes(), service.child.pid),
      ];
      for (const p of all) {
        assert.ok(!p.args.includes(token), `the token on a command line: ${p.args}`);
        assert.ok(!/https?:\/\/127\.0\.0\.1/.test(p.args), `a page's address: ${p.args}`);
      }
      // No socket of the browser listens: there is no port to find.
      const listening = await listeningOf(browser.map((p) => p.pid));
      assert.match(listening, /scanned [1-9]\d* sockets/, "the browser's sockets were seen");
      assert.doesNotMatch(listening, /listening:/, `the browser listens: ${listening}`);
      if (!await isRoot()) return; // uid 65534 is for root to become
      // Another account cannot read the token.
      const seen = await asNobody(`cat '${service.dataDir}/${OPERATOR_TOKEN_FILE}'`);
      assert.match(seen, /Permission denied/);
      assert.ok(!seen.includes(token), "uid 65534 read the token");
    } finally {
      await service.stop();
    }
  },
});

Deno.test({
  ...needs("chromium", "ps"),
  name: "kill -9 of the player leaves no browser process, and its profile goes at the next start",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const service = await startServiceProcess(["--output", "headless", "--virtual-clock"]);
    try {
      const { player, profile } = await runningBrowser(service.child.pid);
      Deno.kill(player, "SIGKILL");
      // Chromium ends when its pipe closes: measured 0.3 s; the bound is for a hang.
      await until("no process naming the killed player's profile", async () => {
        return (await named(profile)).length === 0;
      }, 30_000);
      // The service starts the player again; its supervisor removes the stale profile.
      const next = await playerOf(service.child.pid);
      assert.notEqual(next, player);
      await until("the stale profile removed", async () => {
        try {
          await Deno.stat(profile);
          return false;
        } catch {
          return true;
        }
      }, 120_000);
    } finally {
      await service.stop();
    }
  },
});
