/**
 * A rig's player for `editor_rigs_test.ts`, run by the rig's service as its player
 * (`--player-command`): the bundled player as `cueport player` runs it (the same `startPlayer`,
 * the same flags), with the output's editor page on a stand-in socket. The test, in the rig's
 * namespace, POSTs a message of the editor page (`FromEditor`, as the page's WebSocket sends it)
 * to this process's loopback port (written to `<port file>`); it goes to the real `EditorPage`
 * with the player's own `editorHooks`, and the page's answer (`edited`) is the reply. No
 * browser: the output's socket takes only the browser the player runs (its secret), and no
 * program outside the player can drive that browser (its DevTools pipe is the player's).
 *
 * Usage: `deno run -A _editor_player.ts <port file> <player flags...>`
 * @module
 */
import { MonotonicClock, readPlayerFlags, startPlayer } from "../../../player/mod.ts";
import { RequestTransport } from "../../../player/request_transport.ts";
import { stdioPipe } from "../../../player/stdio_pipe.ts";
import { EditorPage } from "../../../player/output/editor_page.ts";
import { editorHooks } from "../../../player/app_output.ts";
import { IsfPrograms } from "../../../player/output/isf_programs.ts";
import { parseIsf } from "../../../player/isf/mod.ts";

const [portFile, ...flags] = Deno.args;
const read = readPlayerFlags(flags);
if (portFile === undefined || read.help) {
  throw new Error("Usage: _editor_player.ts <port file> <flags>");
}
Deno.addSignalListener("SIGINT", () => {});
const { settings } = read;
const running = await startPlayer({
  dataDir: settings.dataDir,
  transport: new RequestTransport(stdioPipe()),
  clock: new MonotonicClock(),
  plan: settings.plan,
  positionIntervalMs: settings.positionIntervalMs,
  historyLimit: settings.historyLimit,
  textureBudgetMb: settings.outputTextureBudgetMb,
  approval: settings.approval,
});

/** The page's answers by message id, waited for. */
const answers = new Map<number, (answer: unknown) => void>();
const socket = {
  readyState: WebSocket.OPEN,
  send(text: string) {
    const message = JSON.parse(text) as { type: string; id?: number };
    if (message.type === "edited") answers.get(message.id!)?.(message);
  },
  close() {},
} as unknown as WebSocket & { onopen: () => void; onmessage: (e: { data: string }) => void };
const page = new EditorPage({
  hooks: editorHooks(running.app),
  programs: new IsfPrograms(parseIsf),
  now: () => running.app.clock.now(),
  refresh: () => {},
});
page.connected(socket);
socket.onopen();

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  async (request) => {
    const text = await request.text();
    const { id } = JSON.parse(text) as { id: number };
    const answered = new Promise((resolve) => answers.set(id, resolve));
    socket.onmessage({ data: text });
    const answer = await answered;
    answers.delete(id);
    return Response.json(answer);
  },
);
await Deno.writeTextFile(portFile, String(server.addr.port));
await running.done;
Deno.exit(0);
