/**
 * Probe `check_memory` (issue 40): a paired device (127.0.0.2) asks
 * `preset.validate` of a 200 KB shader 50 times (two at once), then of the
 * code that makes the check do the most work its bounds allow (1 190
 * statements, 28 KB: about 59 000 parse steps of the 60 000) 4 times. The
 * player's RSS (VmRSS of `/proc/<pid>/status`) 3 s after the last answer must
 * be within 50 MB of its RSS before the first. A player past 1 GB over its
 * start stops the probe (the machine is not the subject).
 * @module
 */
import { waitReady } from "./_edit_load.ts";
import { type ServiceRun, withService } from "./_harness.ts";
import { readMemory } from "./_proc.ts";
import { RemoteDevice } from "./_remote_device.ts";
import { sleep } from "./_output_show.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import type { Tally } from "./_tally.ts";

const HEADER = '/*{"INPUTS":[{"NAME":"inputImage","TYPE":"image"}]}*/';
const STATEMENT = "  x = x * 1.5 + sin(x);";

/** A shader of `statements` lines of work, as `bench/isf_bounds_bench.ts` builds its largest. */
export function workShader(statements: number): string {
  const body = Array.from({ length: statements }, () => STATEMENT).join("\n");
  return `${HEADER}\nvoid main() {\n  float x = 0.0;\n${body}\n  gl_FragColor = vec4(x);\n}\n`;
}

/** 200 KB of shader, under the 200 000 characters the schema takes (`params.code`). */
export const BIG_SHADER: string = workShader(8_200);
/** The most work the check's bounds let through (`parseSteps` 60 000). */
export const MOST_WORK_SHADER: string = workShader(1_190);

const BIG_CALLS = 50;
const WORK_CALLS = 4;
const AT_ONCE = 2;
/** The player's RSS after the checks, against before, MB. */
const WITHIN_MB = 50;
/** Past this over the start the probe stops asking. */
const STOP_OVER_MB = 1024;

/** The `check_memory` probe. */
export const checkMemory: Probe = {
  name: "check_memory",
  summary:
    "50 preset.validate of a 200 KB shader and 4 of the most work the bounds allow, from a paired device: the player's RSS within 50 MB of its start",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  await withService(tally, {}, async (svc) => {
    if (!(await waitReady(svc))) throw new Error("The player was not ready within 30 s");
    const device = await RemoteDevice.pair(svc.ports.http);
    await sleep(2000);
    const start = await playerRssMb(svc);
    if (start === null) throw new Error("No player process found");
    const calls = [
      ...Array.from({ length: BIG_CALLS }, () => BIG_SHADER),
      ...Array.from({ length: WORK_CALLS }, () => MOST_WORK_SHADER),
    ];
    const verdicts = new Map<string, number>();
    let peak = start;
    let stopped = false;
    const next = async (): Promise<void> => {
      while (calls.length > 0 && !stopped) {
        const code = calls.shift()!;
        tally.inputs++;
        const answer = await device.edit("preset.validate", {
          kind: "effect",
          name: "Probe check",
          type: "isf",
          code,
        });
        const result = (answer.body?.edits as { result?: { valid?: boolean } }[] | undefined)?.[0]
          ?.result;
        const key = `${code.length} chars: ${answer.status} ${
          result?.valid ?? (answer.body?.error as { code?: string })?.code
        }`;
        verdicts.set(key, (verdicts.get(key) ?? 0) + 1);
        if (answer.status !== null) {
          tally.answer(answer.status, null, "POST /api/v1/edit preset.validate");
        }
        const now = await playerRssMb(svc);
        if (now !== null) peak = Math.max(peak, now);
        if (now !== null && now - start > STOP_OVER_MB) stopped = true;
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, next));
    await sleep(3000);
    const end = await playerRssMb(svc);
    judge(tally, { start, end, peak, stopped, verdicts });
  });
}

function judge(
  tally: Tally,
  seen: {
    start: number;
    end: number | null;
    peak: number;
    stopped: boolean;
    verdicts: Map<string, number>;
  },
): void {
  tally.note(`answers: ${[...seen.verdicts].map(([k, n]) => `${n}x ${k}`).join(", ")}`);
  const unanswered = [...seen.verdicts].filter(([k]) => !/: 200 /.test(k)).reduce(
    (n, [, c]) => n + c,
    0,
  );
  if (unanswered > 0) {
    tally.shortfall(`${unanswered} preset.validate not answered 200: those checks were not made`);
  }
  tally.note(
    `player RSS: ${seen.start} MB before, ${
      seen.end ?? "-"
    } MB 3 s after the last answer, ${seen.peak} MB at most between answers`,
  );
  if (seen.stopped) {
    tally.shortfall(`the player passed ${STOP_OVER_MB} MB over its start: probe stopped early`);
  }
  if (seen.end === null) tally.shortfall("no player process after the checks");
  else if (seen.end - seen.start > WITHIN_MB) {
    tally.shortfall(
      `the player's RSS grew ${
        seen.end - seen.start
      } MB (${seen.start} to ${seen.end}; target within ${WITHIN_MB})`,
    );
  }
}

async function playerRssMb(svc: ServiceRun): Promise<number | null> {
  const pid = await svc.playerPid();
  if (pid === null) return null;
  const kb = (await readMemory([pid])).get(pid)?.rss;
  return kb === undefined ? null : Math.round(kb / 1024);
}
