/** What the benches that pair small costs measure with: a process's CPU, and a load. */
import { peerProblem } from "../tools/peers.ts";

/**
 * CPU of a process in us, to the nanosecond: the run time of each of its threads
 * (`/proc/<pid>/task/<tid>/schedstat`), where `/proc/<pid>/stat` counts 10 ms ticks. Threads that
 * ended are left out: Deno's live on.
 */
export function threadCpuMicros(pid: number | "self" = "self"): number {
  let ns = 0;
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/schedstat`).split(" ")[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1000;
}

/** One load run's figures (`wrk` or the built-in generator). */
export interface LoadRun {
  rps: number;
  /** Requests answered in the run. */
  requests: number;
  p50: number;
  p99: number;
  /** Answers not 2xx or 3xx. */
  errors: number;
}

const toMs = (value: string, unit: string) =>
  Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);

/**
 * One load run: `seconds` of `method` requests (a POST sends `body` as JSON) to `url` over
 * `connections` keep-alive connections.
 */
export interface LoadSpec {
  url: string;
  method: string;
  body: string;
  connections: number;
  seconds: number;
}

/** A load run by `wrk` (one thread; Debian's, a peer in `tools/peers.ts`). */
export async function wrkLoad(
  { url, method, body, connections, seconds }: LoadSpec,
): Promise<LoadRun> {
  const args = ["-t", "1", "-c", String(connections), "-d", `${seconds}s`, "--latency"];
  let script: string | undefined;
  if (method === "POST") {
    script = await Deno.makeTempFile({ suffix: ".lua" });
    await Deno.writeTextFile(
      script,
      `wrk.method = "POST"\nwrk.body = ${
        JSON.stringify(body)
      }\nwrk.headers["Content-Type"] = "application/json"\n`,
    );
    args.push("-s", script);
  }
  const out = new TextDecoder().decode(
    (await new Deno.Command("wrk", { args: [...args, url] }).output()).stdout,
  );
  if (script) await Deno.remove(script);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const p = (q: string) => {
    const m = new RegExp(`\\s${q}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m ? toMs(m[1]!, m[2]!) : NaN;
  };
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? rps * seconds);
  return { rps, requests, p50: p("50"), p99: p("99"), errors };
}

/**
 * `seconds` of POSTs of `body` to `url` over `connections` keep-alive connections, by `wrk` when
 * it is installed (as `http_bench.ts` loads), else by the built-in load generator (`load.ts`, its
 * own process).
 * @returns the requests answered
 * @throws {Error} when any was not answered 2xx
 */
export async function postLoad(
  url: string,
  body: string,
  connections: number | string,
  seconds: number | string,
): Promise<number> {
  const load = peerProblem("wrk") === null ? wrkLoad : builtInLoad;
  const result = await load({
    url,
    method: "POST",
    body,
    connections: Number(connections),
    seconds: Number(seconds),
  });
  if (result.errors > 0) throw new Error(`${url}: ${result.errors} requests failed`);
  return result.requests;
}

/** A load run by the built-in load generator (`load.ts`, its own process). */
export async function builtInLoad(
  { url, method, body, connections, seconds }: LoadSpec,
): Promise<LoadRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      new URL("./load.ts", import.meta.url).pathname,
      ...[url, method, body, String(connections), String(seconds)],
    ],
  }).output();
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  return { rps: r.rps, requests: r.requests, p50: r.p50, p99: r.p99, errors: r.errors };
}
