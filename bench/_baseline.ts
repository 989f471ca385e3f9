/**
 * The bare baseline (`baseline.ts`) started beside Cueport, answering the very bytes Cueport
 * answered: a bench fetches each answer once from Cueport (`capture`, `captureAction`), then the
 * baseline serves them (`startBaseline`), so a row and its baseline send the same bytes with the
 * same type.
 * @module
 */
import { firstLine } from "../tools/first_line.ts";
import { cpuMicros } from "./_cueport.ts";

/** An answer captured from Cueport: its bytes and its content type. */
export interface Captured {
  readonly bytes: Uint8Array;
  readonly type: string;
}

/**
 * What Cueport's answer to an action holds beyond the request's body and the player's result
 * (`{applied, message}`): the Project it answered for and the names it gave the body's params.
 * The baseline's POSTs answer with them, so they send Cueport's very bytes.
 */
export interface CapturedAction {
  readonly projectId: string | null;
  readonly params: readonly string[];
}

/** A running bare baseline. */
export interface Baseline {
  /** Its origin, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /**
   * CPU time (us) used so far by the bare server and by the bare child it relays POSTs to, read
   * as Cueport's service and player are (so the design's limit has a CPU figure too); null where
   * /proc is missing.
   */
  cpu(): { service: number; player: number } | null;
  stop(): Promise<void>;
}

/** The answer to one GET of `url` (it must be a 200), as the baseline will send it. */
export async function capture(url: string): Promise<Captured> {
  const res = await fetch(url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return { bytes, type: res.headers.get("content-type") ?? "application/octet-stream" };
}

/**
 * Cueport's answer to one POST of the action `body` (a JSON text) to `url` (it must be a 200), as
 * the baseline's POSTs will answer it.
 */
export async function captureAction(url: string, body: string): Promise<CapturedAction> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(answer)}`);
  return { projectId: answer.projectId, params: Object.keys(answer.params ?? {}) };
}

/**
 * Starts `baseline.ts` answering each path of `answers` (`/file`) with its captured bytes, and
 * its POSTs as Cueport answered `action` (without it: no Project, the params as sent). `script`
 * runs another baseline in its place (an older one, `git show <rev>:bench/baseline.ts`, beside
 * its `baseline_child.ts`): with no answers and no action it is given no manifest.
 */
export async function startBaseline(
  answers: Record<string, Captured>,
  action?: CapturedAction,
  script: string = new URL("./baseline.ts", import.meta.url).pathname,
): Promise<Baseline> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-baseline-" });
  const gets: Record<string, { file: string; type: string }> = {};
  for (const [i, [path, { bytes, type }]] of Object.entries(answers).entries()) {
    const file = `${dir}/${i}`;
    await Deno.writeFile(file, bytes);
    gets[path] = { file, type };
  }
  await Deno.writeTextFile(`${dir}/manifest.json`, JSON.stringify({ gets, action }));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...["--allow-net=127.0.0.1", "--allow-read", "--allow-run"],
      script,
      ...(Object.keys(answers).length === 0 && action === undefined
        ? []
        : [`${dir}/manifest.json`]),
    ],
    stdout: "piped",
  }).spawn();
  const { port, childPid } = JSON.parse(await firstLine(child.stdout));
  return {
    url: `http://127.0.0.1:${port}`,
    cpu() {
      const server = cpuMicros(child.pid);
      const relay = cpuMicros(childPid);
      return server === null || relay === null ? null : { service: server, player: relay };
    },
    async stop() {
      child.kill();
      await child.status;
      await child.stdout.cancel().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}
