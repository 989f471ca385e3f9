/**
 * `deno task smoke -- <command>`: starts Cueport with `<command>` (a compiled
 * binary, or `deno run ... main.ts`) on a fresh data dir and free loopback
 * ports, and checks what a new user would see first: the ready line, the
 * bundled player ready on `/health`, an action answered and its effect read
 * back, and a clean stop. Prints one line per check; exits 1 on the first
 * failure. The release workflow runs it on every compiled binary.
 * @module
 */
import { firstLine } from "./first_line.ts";

const READY_WITHIN_MS = 30_000;

async function main(command: string[]): Promise<void> {
  const [program, ...args] = command;
  if (!program) throw new Error("usage: deno task smoke -- <command to start cueport>");
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-smoke-" });
  const child = new Deno.Command(program, {
    args: [
      ...args,
      ...["--data-dir", dataDir, "--host", "127.0.0.1", "--log-level", "warn"],
      ...["--http-port", "0", "--ws-port", "0", "--osc-port", "0", "--osc-query-port", "0"],
      ...["--legacy-http-port", "0", "--legacy-ws-port", "0"],
      // UDP 5353 is one port for the machine: a smoke check has nothing to advertise.
      ...["--mdns", "off"],
    ],
    stdout: "piped",
    env: { RUST_BACKTRACE: "0" },
  }).spawn();
  let failure: unknown = null;
  try {
    const ready = JSON.parse(await firstLine(child.stdout));
    check(ready.event === "ready" && ready.ports.http > 0, `ready line: ${JSON.stringify(ready)}`);
    const base = `http://127.0.0.1:${ready.ports.http}`;
    const deadline = Date.now() + READY_WITHIN_MS;
    let health = await getJson(`${base}/health`);
    while (!health.ready && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      health = await getJson(`${base}/health`);
    }
    check(health.ready === true, `player ready: ${JSON.stringify(health.player)}`);
    const action = await fetch(`${base}/api/v1/action`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.25] }),
    });
    const answer = await action.json();
    check(action.status === 200 && answer.ok === true, `action: ${JSON.stringify(answer)}`);
    const active = await getJson(`${base}/api/v1/active`);
    const value = active.playstate?.controls?.A;
    check(value === 0.25, `read back: Control A = ${value}`);
  } catch (error) {
    failure = error;
  }
  try {
    // Windows has no signal a process can catch from another: there it is only ended.
    child.kill(Deno.build.os === "windows" ? "SIGKILL" : "SIGINT");
  } catch {
    // it has exited already
  }
  const status = await child.status;
  await child.stdout.cancel().catch(() => {});
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  if (failure) throw failure;
  if (Deno.build.os !== "windows") check(status.code === 0, `stopped: exit code ${status.code}`);
}

function check(isOk: boolean, what: string): void {
  if (!isOk) throw new Error(`FAILED ${what}`);
  console.log(`ok ${what}`);
}

async function getJson(url: string) {
  const response = await fetch(url);
  return await response.json();
}

if (import.meta.main) {
  try {
    await main(Deno.args[0] === "--" ? Deno.args.slice(1) : Deno.args);
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
}
