/**
 * Probe `stalled_bodies`: requests that start and then go silent (uploads,
 * JSON bodies, headers), local and remote, against a service whose
 * deadlines are lowered to 2 s (`--header-timeout`, `--upload-idle-timeout`).
 * Each must be ended by the service (an answer or a close) within its
 * deadline plus 5 s, nothing may stay in the upload staging folder, and
 * local clients must be served meanwhile.
 * @module
 */
import { ANSWER_WITHIN_MS, withService } from "./_harness.ts";
import { RawConnection } from "./_raw_http.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const DEADLINE_MS = 2000;

/** One kind of stalled request: what is sent before the silence, from where, how many. */
interface Stall {
  name: string;
  localAddress: () => string;
  count: number;
  start: (host: string) => string;
}

let remote = 0;
const remoteAddress = () => `127.0.2.${2 + (remote++ % 250)}`;
const local = () => "127.0.0.1";
const STALLS: Stall[] = [
  {
    name: "local upload",
    localAddress: local,
    count: 5,
    start: (h) =>
      `POST /api/v1/files/upload?name=a.wav HTTP/1.1\r\n${h}content-length: 104857600\r\n\r\n${
        "a".repeat(65_536)
      }`,
  },
  {
    name: "remote upload without a token",
    localAddress: remoteAddress,
    count: 10,
    start: (h) =>
      `POST /api/v1/files/upload?name=a.wav HTTP/1.1\r\n${h}content-length: 104857600\r\n\r\n${
        "a".repeat(65_536)
      }`,
  },
  {
    name: "local JSON body",
    localAddress: local,
    count: 5,
    start: (h) => `POST /api/v1/edit HTTP/1.1\r\n${h}content-length: 1000\r\n\r\n{"name":"so`,
  },
  {
    name: "remote pairing body",
    localAddress: remoteAddress,
    count: 5,
    start: (h) => `POST /api/v1/pair HTTP/1.1\r\n${h}content-length: 100\r\n\r\n{"otp":`,
  },
  {
    name: "remote headers",
    localAddress: remoteAddress,
    count: 5,
    start: (h) => `GET /api/v1/projects HTTP/1.1\r\n${h}x-slow: `,
  },
];

/** The `stalled_bodies` probe. */
export const stalledBodies: Probe = {
  name: "stalled_bodies",
  summary: "uploads, JSON bodies and headers that stall; each ended by its deadline",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const args = [
    "--header-timeout",
    String(DEADLINE_MS),
    "--upload-idle-timeout",
    String(DEADLINE_MS),
  ];
  await withService(tally, { args }, async (run) => {
    const host = `host: 127.0.0.1:${run.ports.http}\r\n`;
    const open: Array<{ stall: Stall; c: RawConnection }> = [];
    for (const stall of STALLS) {
      for (let i = 0; i < stall.count; i++) {
        tally.inputs++;
        const c = await RawConnection.connect({
          port: run.ports.http,
          localAddress: stall.localAddress(),
        });
        c.send(stall.start(host));
        open.push({ stall, c });
      }
    }
    const t0 = performance.now();
    await Promise.all(
      open.map(({ c }) =>
        c.waitUntil(() => c.isAnswered || c.isClosed, DEADLINE_MS + ANSWER_WITHIN_MS)
      ),
    );
    const byKind = new Map<string, string[]>();
    for (const { stall, c } of open) {
      const a = c.answer();
      const seen = a.status !== null
        ? `${a.status}${a.code ? ` ${a.code}` : ""}`
        : c.isClosed
        ? "closed"
        : "still open";
      byKind.set(stall.name, [...(byKind.get(stall.name) ?? []), seen]);
      if (!c.isAnswered && !c.isClosed) {
        tally.hang(
          `${stall.name}: neither answered nor closed ${
            DEADLINE_MS + ANSWER_WITHIN_MS
          } ms after it stalled`,
        );
      }
      tally.answer(a.status, a.code, stall.name);
      c.destroy();
    }
    for (const [kind, seen] of byKind) tally.note(`${kind}: ${summarize(seen)}`);
    tally.note(`waited ${Math.round(performance.now() - t0)} ms for the service to end them`);
    await new Promise((r) => setTimeout(r, 1000)); // the service cleans up after the close
    const staged = await countFiles(`${run.dataDir}/uploads`);
    if (staged > 0) tally.note(`${staged} file(s) left in the upload staging folder 1 s after`);
  });
}

function summarize(seen: string[]): string {
  const counts = new Map<string, number>();
  for (const s of seen) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${n}x ${s}`).join(", ");
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  try {
    for await (const entry of Deno.readDir(dir)) if (entry.isFile) n++;
  } catch {
    // no staging folder: nothing staged
  }
  return n;
}
