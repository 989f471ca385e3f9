/**
 * The bundled player: the show application, headless. `runPlayerStdio` is
 * what `cueport player` runs; `startPlayer` runs it on any transport (tests
 * use an in-memory pair).
 * @module
 */
import { parseArgs } from "node:util";
import { stdioPipe } from "./stdio_pipe.ts";
import type { Transport } from "../protocol/transport.ts";
import { PlayerApp } from "./app.ts";
import { type Clock, MonotonicClock, VirtualClock } from "./clock.ts";
import { RequestTransport } from "./request_transport.ts";
import { servePlayer } from "./rpc_server.ts";

export { PLAYER_INFO, PlayerApp, type PlayerOptions } from "./app.ts";
export { type Clock, MonotonicClock, VirtualClock } from "./clock.ts";

/** Options of `startPlayer`. */
export interface StartPlayerOptions {
  dataDir: string;
  transport: Transport;
  clock?: Clock;
  plan?: "pro" | "free";
  positionIntervalMs?: number;
  historyLimit?: number;
  approval?: "approve" | "deny" | "wait";
  onShutdown?: () => void;
}

/** A running player. */
export interface RunningPlayer {
  app: PlayerApp;
  /** Resolves when the transport has closed and the app has flushed. */
  done: Promise<void>;
}

/** Opens the app on `dataDir` and serves it on `transport`. */
export async function startPlayer(options: StartPlayerOptions): Promise<RunningPlayer> {
  const clock = options.clock ?? new MonotonicClock();
  const app = await PlayerApp.open({
    dataDir: options.dataDir,
    clock,
    plan: options.plan ?? "pro",
    positionIntervalMs: options.positionIntervalMs ?? 250,
    historyLimit: options.historyLimit ?? 100,
    log: (level, message) => console.error(`[player] ${level}: ${message}`),
  });
  const serveOptions = {
    ...(clock instanceof VirtualClock ? { virtualClock: clock } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
    ...(options.onShutdown ? { onShutdown: options.onShutdown } : {}),
  };
  const done = servePlayer(app, options.transport, serveOptions).then(() => app.close());
  return { app, done };
}

/** Usage of `cueport player`. */
export const PLAYER_USAGE = `Usage: cueport player [options]
Runs the bundled player on stdin/stdout (newline-delimited JSON-RPC 2.0).
  --data-dir DIR           where projects live (required)
  --plan pro|free          plan entitlements (default pro)
  --virtual-clock          run on a virtual clock moved by clock.advance (tests)
  --position-interval MS   position report interval while playing (default 250)
  --approval MODE          answer to approval requests: approve (default), deny, wait
  --history-limit N        undo steps kept per Project (default 100)`;

/** Entry of `cueport player`: serves stdin/stdout until stdin closes or `shutdown`. */
export async function runPlayerStdio(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      "data-dir": { type: "string" },
      plan: { type: "string", default: "pro" },
      "virtual-clock": { type: "boolean", default: false },
      "position-interval": { type: "string", default: "250" },
      approval: { type: "string", default: "approve" },
      "history-limit": { type: "string", default: "100" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help || !values["data-dir"]) {
    console.error(PLAYER_USAGE);
    Deno.exit(values.help ? 0 : 2);
  }
  const plan = values.plan === "free" ? "free" : "pro";
  // The service owns the player's life (shutdown, or stdin closing). A Ctrl-C in a
  // terminal reaches the whole process group; the player lets the service stop it.
  Deno.addSignalListener("SIGINT", () => {});
  // Bounded request lines: 16 MiB, 1,000 levels deep (request_transport.ts).
  const transport = new RequestTransport(stdioPipe());
  const running = await startPlayer({
    dataDir: values["data-dir"],
    transport,
    clock: values["virtual-clock"] ? new VirtualClock() : new MonotonicClock(),
    plan,
    positionIntervalMs: Number(values["position-interval"]),
    historyLimit: Math.max(1, Number(values["history-limit"]) || 100),
    approval: values.approval === "deny" || values.approval === "wait"
      ? values.approval
      : "approve",
  });
  await running.done;
  // Everything is written (stdout writes are synchronous); a stdin read still
  // waiting on its thread must not keep the process alive.
  Deno.exit(0);
}
