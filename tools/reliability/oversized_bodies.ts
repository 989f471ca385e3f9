/**
 * Probe `oversized_bodies`: bodies far past every limit, each on a fresh
 * service: 400 MiB chunked to `POST /api/v1/pair` from a remote address,
 * 512 MiB chunked to `POST /api/v1/edit` from 127.0.0.1, a 512 MiB upload
 * announced by Content-Length from a remote address without a token, and
 * 48 MiB of multipart with no boundary in it. Each must be refused early
 * (an answer or a close) with the service's memory bounded.
 * @module
 */
import { ANSWER_WITHIN_MS, withService } from "./_harness.ts";
import { readMemory } from "./_proc.ts";
import { RawConnection } from "./_raw_http.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const MiB = 1024 * 1024;
/** How long a body may take to send; a service that reads slower is cut off (short: 10 s). */
const SEND_WITHIN_MS = { short: 10_000, full: 60_000 };

/** One oversized body. */
interface Body {
  name: string;
  localAddress: string;
  head: string;
  bytes: number;
  isChunked: boolean;
}

function bodies(port: number): Body[] {
  const host = `host: 127.0.0.1:${port}\r\n`;
  return [
    {
      name: "400 MiB chunked pairing request, remote",
      localAddress: "127.0.0.2",
      head:
        `POST /api/v1/pair HTTP/1.1\r\n${host}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
      bytes: 400 * MiB,
      isChunked: true,
    },
    {
      name: "512 MiB chunked edit, local",
      localAddress: "127.0.0.1",
      head:
        `POST /api/v1/edit HTTP/1.1\r\n${host}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
      bytes: 512 * MiB,
      isChunked: true,
    },
    {
      name: "512 MiB upload by Content-Length, remote without a token",
      localAddress: "127.0.0.2",
      head: `POST /api/v1/files/upload?name=a.wav HTTP/1.1\r\n${host}content-length: ${
        512 * MiB
      }\r\n\r\n`,
      bytes: 512 * MiB,
      isChunked: false,
    },
    {
      name: "48 MiB multipart without its boundary, local",
      localAddress: "127.0.0.1",
      head:
        `POST /api/v1/files/upload HTTP/1.1\r\n${host}content-type: multipart/form-data; boundary=reliability\r\ncontent-length: ${
          48 * MiB
        }\r\n\r\n`,
      bytes: 48 * MiB,
      isChunked: false,
    },
  ];
}

/** The `oversized_bodies` probe. */
export const oversizedBodies: Probe = {
  name: "oversized_bodies",
  summary: "400 MiB, 512 MiB and 48 MiB multipart bodies; refused early, memory bounded",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const chunk = new TextEncoder().encode("a".repeat(MiB));
  const chunked = new TextEncoder().encode(`${MiB.toString(16)}\r\n${"a".repeat(MiB)}\r\n`);
  for (let i = 0; i < 4; i++) {
    await withService(tally, {}, async (run) => {
      const body = bodies(run.ports.http)[i]!;
      tally.inputs++;
      const c = await RawConnection.connect({
        port: run.ports.http,
        localAddress: body.localAddress,
      });
      const t0 = performance.now();
      const sendWithin = SEND_WITHIN_MS[context.mode];
      await c.write(body.head);
      let sent = 0;
      while (sent < body.bytes && !c.isClosed && c.received === 0) {
        const isTaken = await Promise.race([
          c.write(body.isChunked ? chunked : chunk),
          new Promise<boolean>((r) =>
            setTimeout(() => r(false), sendWithin - (performance.now() - t0))
          ),
        ]);
        if (!isTaken) break;
        sent += MiB;
      }
      const isCutOff = sent < body.bytes && !c.isClosed && c.received === 0;
      if (sent >= body.bytes && body.isChunked) await c.write("0\r\n\r\n");
      // A body cut off is still being read: the service owes no answer for it.
      const isEnded = isCutOff ||
        await c.waitUntil(() => c.isAnswered || c.isClosed, ANSWER_WITHIN_MS);
      const answer = c.answer();
      c.destroy();
      const memory = (await readMemory([run.service.pid])).get(run.service.pid);
      if (!isEnded) {
        tally.hang(
          `${body.name}: no answer nor close ${ANSWER_WITHIN_MS} ms after ${sent / MiB} MiB`,
        );
      }
      tally.answer(answer.status, answer.code, body.name);
      const outcome = isCutOff
        ? `cut off after ${sendWithin} ms, still reading`
        : `${answer.status ?? "no answer"}${answer.code ? ` ${answer.code}` : ""}`;
      const peak = memory ? `${Math.round(memory.hwm / 1024)} MB` : "?";
      tally.note(
        `${body.name}: ${outcome} after ${Math.round(sent / MiB)} MiB sent, ${
          Math.round(performance.now() - t0)
        } ms; service peak RSS ${peak}`,
      );
    });
  }
}
