/**
 * Probe `page_forgery` (issue 40): a local program finds the output server's
 * sockets as an attacker would (`_output_sockets.ts`: the listening sockets
 * the player and its browser own, the page's address where a command line
 * shows it) while the preset editor is open (`OPEN_EDITOR`), and to every
 * page or editor socket that admits it sends a forged `{"type":"gl-lost"}`
 * and 3,000 garbage frames (not JSON, unknown types, faults and compile
 * errors of random text, editor undos). After 5 s: the browser must never
 * have restarted (`/health` `output.browserStarts` unchanged), the player
 * neither (the harness), and the service's log may have grown by at most 5
 * lines, the output's lines about the machine's pace aside (`PACE_LINE`). A
 * socket that refuses the program is the way it should be; each handshake
 * tried is an input and each one answered (admitted or refused with a status)
 * received: none answered is nothing exercised, and misses.
 * @module
 */
import { countReceived, requireFigures } from "./_figures.ts";
import type { ServiceRun } from "./_harness.ts";
import { postAction } from "./_load_recording.ts";
import { restartLines } from "./load.ts";
import { admitted, outputSocketTargets } from "./_output_sockets.ts";
import { browserStarts, sleep, withShow } from "./_output_show.ts";
import type { Rng } from "./_prng.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import type { WsClient } from "./_ws.ts";

const GARBAGE_FRAMES = 3000;
/** The log lines the whole attack may add. */
const FEW_LOG_LINES = 5;
/**
 * The output's own lines about the machine's pace (its render scale, a second it drew few frames
 * in), at warn since the service logs the player's lines at their level: the load's, not the
 * attack's (a forged page is never admitted, so its reports cannot move the scale).
 */
const PACE_LINE = /Output: (?:drawing at scale|the page drew [\d.]+ frames)/;
const AFTER_MS = 5000;

/** The `page_forgery` probe. */
export const pageForgery: Probe = {
  name: "page_forgery",
  summary:
    "forged gl-lost and 3,000 garbage frames to the page and editor sockets from a local program: browser never restarted, at most 5 log lines",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally, rng } = context;
  requireFigures(tally, ["received"]);
  await withShow(tally, async (svc) => {
    const port = svc.ports.http;
    const editor = await postAction(port, "OPEN_EDITOR", ["effect", "fx-blur"]);
    if (editor.status !== 200) tally.note(`OPEN_EDITOR answered ${editor.status}`);
    await sleep(3000); // the editor's page loads
    const startsBefore = await browserStarts(port);
    const linesBefore = svc.service.stderrLines;
    const player = await svc.playerPid();
    if (player === null) throw new Error("No player process");
    const targets = await outputSocketTargets(player);
    if (targets.length === 0) {
      tally.shortfall("no listening port of the player or its browser found: nothing was attacked");
    }
    const { open, answered } = await admitted(targets);
    countAttempts(tally, { tried: targets.length, answered });
    tally.note(
      `${targets.length} socket address(es) tried on ${
        new Set(targets.map((t) => t.port)).size
      } port(s); ` +
        `admitted: ${
          open.map((o) => `${o.target.port}${o.target.path.replace(/[0-9a-f]{32}/, "<secret>")}`)
            .join(", ") || "none"
        }`,
    );
    for (const { client } of open) await attack(client, rng, () => tally.inputs++);
    await sleep(AFTER_MS);
    await judge(svc, { startsBefore, linesBefore, tally });
    for (const { client } of open) client.destroy();
  }, { args: ["--log-level", "info"] }); // the default level of a service started by hand
}

/**
 * Counts the sockets tried into `tally`: each handshake sent is an input, each one the output
 * server answered (admitted or refused with a status) is received. None tried or none answered
 * is an attack that exercised nothing, and misses (`received`).
 */
export function countAttempts(tally: Tally, attempts: { tried: number; answered: number }): void {
  tally.inputs += attempts.tried;
  requireFigures(tally, ["received"]);
  countReceived(tally, attempts.answered);
}

/** The forged message, then the garbage, with backpressure every 100 frames. */
async function attack(client: WsClient, rng: Rng, count: () => void): Promise<void> {
  client.send({ type: "gl-lost" });
  count();
  for (let i = 0; i < GARBAGE_FRAMES && !client.isClosed; i++) {
    client.send(garbage(rng, i));
    count();
    if (i % 100 === 99) await client.flush(new Uint8Array(0));
  }
}

/** One garbage message: the kinds in turn, their text random. */
function garbage(rng: Rng, i: number): string {
  const text = rng.string(rng.range(1, 200));
  switch (i % 6) {
    case 0:
      return text; // not JSON
    case 1:
      return JSON.stringify({ type: text });
    case 2:
      return JSON.stringify({ type: "fault", message: text });
    case 3:
      return JSON.stringify({ type: "compile-error", program: text, log: text });
    case 4:
      return JSON.stringify({ type: "history", id: i, direction: "undo" });
    default:
      return JSON.stringify({ type: "gl-lost", detail: text });
  }
}

async function judge(
  svc: ServiceRun,
  seen: { startsBefore: number | null; linesBefore: number; tally: ProbeContext["tally"] },
): Promise<void> {
  const { tally } = seen;
  const startsAfter = await browserStarts(svc.ports.http);
  const added = svc.service.stderrLines - seen.linesBefore;
  const held = added > 0 ? svc.service.stderrTail().trimEnd().split("\n").slice(-added) : [];
  // Lines past what the tail holds are a flood whatever they say.
  const pace = held.length === added ? held.filter((l) => PACE_LINE.test(l)).length : 0;
  const lines = added - pace;
  tally.note(
    `browserStarts ${seen.startsBefore} before, ${startsAfter} after; ${added} log line(s) ` +
      `added, ${pace} of them the output's pace`,
  );
  const tail = svc.service.stderrTail().trim().split("\n").slice(-2);
  if (added > 0) tally.note(`last log lines: ${tail.map((l) => l.slice(0, 200)).join(" / ")}`);
  if (seen.startsBefore === null || startsAfter === null) {
    tally.shortfall("/health has no output.browserStarts");
  } else if (startsAfter !== seen.startsBefore) {
    const why = restartLines(svc.service.stderrTail().split("\n"));
    tally.shortfall(
      `the browser restarted ${startsAfter - seen.startsBefore} time(s) (target 0): ${
        why.join(" / ") || "the log does not say why"
      }`,
    );
  }
  if (lines > FEW_LOG_LINES) {
    tally.shortfall(`${lines} log lines added, pace aside (target at most ${FEW_LOG_LINES})`);
  }
}
