/**
 * Probe `other_account` (issue 40): what a program of another local account
 * (uid 65534, `nobody`) reaches of a service run as root with a headless
 * output. As root the probe lists the TCP sockets the browser's processes
 * listen on (there must be none: no DevTools port); then it runs
 * `_other_account_attacker.ts` as uid 65534 (`setpriv --reuid=65534
 * --regid=65534 --clear-groups`, a hard link of this Deno in a temp dir, since
 * the account cannot reach root's home), which tries `/json/version` on every
 * loopback port, reads the operator token through any DevTools port as a
 * `file://` page, and gathers every other route (data dir, pages, sockets
 * without a secret, command lines, `/proc/<pid>/environ` and `cmdline` of the
 * Cueport processes). Past `/json/version`, only the ports of the probe's own
 * service, player and browser are opened (others' browsers on a shared machine
 * are left be; one found is counted in the notes). The operator token must be in none of it, and no token
 * found may open `/api/v1/devices`. Not root, or no `setpriv`: NOT RUN.
 * @module
 */
import { tempDir, track } from "./_children.ts";
import type { ServiceRun } from "./_harness.ts";
import { withShow } from "./_output_show.ts";
import { descendants, isBrowser, listeningNow, socketInodes } from "./_process_tree.ts";
import { which } from "../peers.ts";
import { NotRun, type Probe, type ProbeContext } from "./_types.ts";
import type { Tally } from "./_tally.ts";

const ATTACKER = new URL("./_other_account_attacker.ts", import.meta.url).pathname;
const NOBODY = 65534;
const ATTACK_WITHIN_MS = 120_000;

/** What the attacker printed. */
interface Attack {
  uid: number;
  ports: number;
  devtools: { port: number; browser: string }[];
  otherDevtools: number[];
  reads: { route: string; text: string }[];
  tokenAnswers: number[];
  errors: string[];
}

/** The `other_account` probe. */
export const otherAccount: Probe = {
  name: "other_account",
  summary:
    "a process of uid 65534 finds no DevTools port and cannot read the operator token by any route of Cueport",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  if (Deno.uid() !== 0) {
    throw new NotRun("needs root: the attacking part runs as uid 65534 through setpriv");
  }
  if (which("setpriv") === undefined) throw new NotRun("setpriv not found (Debian: util-linux)");
  await withShow(tally, async (svc) => {
    const token = (await Deno.readTextFile(`${svc.dataDir}/auth/operator-token`)).trim();
    const tree = await descendants(svc.service.pid);
    const pids = [svc.service.pid, ...tree.map((r) => r.pid)];
    await browserListeners(tree.filter(isBrowser).map((r) => r.pid), tally);
    const inodes = await socketInodes(pids);
    const ownPorts = (await listeningNow()).filter((l) => inodes.has(l.inode)).map((l) => l.port);
    const attack = await asNobody({
      dataDir: svc.dataDir,
      httpPort: svc.ports.http,
      pids,
      ownPorts,
    });
    judge(attack, token, tally);
    await stillServed(svc, tally);
  });
}

/** The TCP sockets the browser's processes listen on (a DevTools port), as root sees them. */
async function browserListeners(pids: number[], tally: Tally): Promise<void> {
  const inodes = await socketInodes(pids);
  const listening = (await listeningNow()).filter((l) => inodes.has(l.inode));
  tally.note(
    `${pids.length} browser process(es); TCP sockets they listen on: ${
      listening.map((l) => `${l.address}:${l.port}`).join(", ") || "none"
    }`,
  );
  if (listening.length > 0) {
    tally.shortfall(
      `the browser's processes listen on ${listening.length} TCP socket(s) (target none)`,
    );
  }
}

/** Runs the attacker as uid 65534 and reads its JSON line. */
async function asNobody(
  given: { dataDir: string; httpPort: number; pids: number[]; ownPorts: number[] },
): Promise<Attack> {
  const dir = await tempDir("cueport-other-account-");
  try {
    await Deno.chmod(dir.path, 0o755);
    const deno = `${dir.path}/deno`;
    await Deno.link(Deno.execPath(), deno).catch(() => Deno.copyFile(Deno.execPath(), deno));
    const home = `${dir.path}/home`;
    await Deno.mkdir(home);
    await Deno.chown(home, NOBODY, NOBODY);
    const child = new Deno.Command("setpriv", {
      args: [
        ...[`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--"],
        ...[deno, "run", "--no-config", "--no-lock", "-A", ATTACKER, JSON.stringify(given)],
      ],
      clearEnv: true,
      env: { HOME: home, DENO_DIR: `${home}/deno`, PATH: "/usr/bin:/bin", NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    track(child);
    const timer = setTimeout(() => child.kill("SIGKILL"), ATTACK_WITHIN_MS);
    const out = await child.output();
    clearTimeout(timer);
    const line = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
    try {
      return JSON.parse(line) as Attack;
    } catch {
      const err = new TextDecoder().decode(out.stderr).trim().slice(-500);
      throw new Error(`The attacker (uid ${NOBODY}) printed no result (exit ${out.code}): ${err}`);
    }
  } finally {
    await dir.remove();
  }
}

function judge(attack: Attack, token: string, tally: Tally): void {
  tally.inputs += attack.reads.length;
  tally.note(
    `uid ${attack.uid}: ${attack.ports} loopback port(s) listening; ${attack.reads.length} route(s) gave text; ` +
      `${attack.errors.length} refused (${attack.errors.slice(0, 3).join(", ")})`,
  );
  if (attack.otherDevtools.length > 0) {
    tally.note(
      `DevTools ports of other programs' browsers on this machine (left be): ${attack.otherDevtools.length}`,
    );
  }
  if (attack.ports === 0) tally.shortfall(`uid ${NOBODY} saw no listening port: it could not look`);
  if (attack.uid !== NOBODY) {
    tally.shortfall(`the attacker ran as uid ${attack.uid}, not ${NOBODY}`);
  }
  if (attack.devtools.length > 0) {
    tally.shortfall(
      `uid ${NOBODY} found a DevTools port: ${
        attack.devtools.map((d) => `${d.port} (${d.browser})`).join(", ")
      }`,
    );
  }
  const leaks = attack.reads.filter((r) => r.text.includes(token)).map((r) => r.route);
  if (leaks.length > 0) {
    tally.shortfall(`uid ${NOBODY} read the operator token through: ${leaks.join("; ")}`);
  }
  const opened = attack.tokenAnswers.filter((s) => s === 200).length;
  if (opened > 0) tally.shortfall(`a token uid ${NOBODY} found opened /api/v1/devices (200)`);
  const secrets = attack.reads.filter((r) => /127\.0\.0\.1:\d+\/[0-9a-f]{32}\//.test(r.text)).map((
    r,
  ) => r.route);
  if (secrets.length > 0) {
    tally.note(`the page's secret address was readable through: ${secrets.slice(0, 3).join("; ")}`);
  }
}

/** The attack must not have cost the show: a local request still answered. */
async function stillServed(svc: ServiceRun, tally: Tally): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${svc.ports.http}/health`).catch(() => null);
  await res?.body?.cancel();
  if (res?.status !== 200) {
    tally.shortfall(`/health answered ${res?.status ?? "nothing"} after the attack`);
  }
}
