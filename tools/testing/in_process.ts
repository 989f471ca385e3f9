/** Launches bundled players in-process over in-memory transport pairs. */
import { memoryTransportPair } from "../../protocol/transport.ts";
import { type RunningPlayer, startPlayer, VirtualClock } from "../../player/mod.ts";
import type { PlayerLauncher } from "../../server/player_client/mod.ts";

/** A launcher whose players run in this process on virtual clocks. */
export interface InProcessLauncher extends PlayerLauncher {
  /** Every player launched so far, oldest first. */
  players: RunningPlayer[];
  clocks: VirtualClock[];
  /** Ends the current player as if its process died. */
  crash(): Promise<void>;
}

/** Builds an in-process launcher on `dataDir`. */
export function inProcessLauncher(dataDir: string): InProcessLauncher {
  const closers: Array<() => Promise<void>> = [];
  const launcher: InProcessLauncher = {
    players: [],
    clocks: [],
    async launch() {
      const [serverSide, playerSide] = memoryTransportPair();
      const clock = new VirtualClock();
      const running = await startPlayer({
        dataDir,
        transport: playerSide,
        clock,
        positionIntervalMs: 0,
      });
      launcher.players.push(running);
      launcher.clocks.push(clock);
      closers.push(() => playerSide.close());
      return {
        transport: serverSide,
        exited: running.done,
        kill: () => void playerSide.close(),
        pid: null,
      };
    },
    async crash() {
      await closers.at(-1)?.();
      await launcher.players.at(-1)?.done;
    },
  };
  return launcher;
}
