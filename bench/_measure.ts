/** What the benches that pair small costs measure with: a process's CPU, and a POST load. */

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

/**
 * `seconds` of POSTs of `body` to `url` over `connections` keep-alive connections, by the built-in
 * load generator (`load.ts`, its own process).
 * @returns the requests answered
 * @throws {Error} when any was not answered 2xx
 */
export async function postLoad(
  url: string,
  body: string,
  connections: number | string,
  seconds: number | string,
): Promise<number> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      new URL("./load.ts", import.meta.url).pathname,
      ...[url, "POST", body, String(connections), String(seconds)],
    ],
  }).output();
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  if (result.errors > 0) throw new Error(`${url}: ${result.errors} requests failed`);
  return result.requests;
}
