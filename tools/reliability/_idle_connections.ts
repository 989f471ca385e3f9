/**
 * Idle, half-sent HTTP requests held open against a port (`exhaustion` on the HTTP port,
 * `oscquery_edge` on OSCQuery's), and what the service did with them: a connection it answered
 * or closed is one it received (its own accept loop acted on it, a refusal or its header
 * deadline); one merely held may still sit in the kernel's backlog, so it is no evidence.
 * @module
 */
import { RawConnection } from "./_raw_http.ts";

const BATCH = 100;
/** How long a batch is given to be refused: a refusal may come as an answer and a close. */
const REFUSAL_MS = 200;

/** Where and how the idle connections are opened. */
export interface IdleOptions {
  port: number;
  /** The source address of the next connection. */
  addresses: () => string;
  /** How many to open at the most. */
  count: number;
  /** The request's start, never finished (no blank line). */
  request: string;
}

/** What came of one call of `openIdle`. */
export interface IdleOutcome {
  /** Connections held open. */
  opened: number;
  /** Connections refused: not connected, answered or closed. */
  refused: number;
  /** Of those refused, the ones the service answered or closed: it received them. */
  answered: number;
}

/**
 * Opens up to `options.count` idle connections into `open`; stops when the service refuses a
 * whole batch.
 */
export async function openIdle(
  options: IdleOptions,
  open: RawConnection[],
): Promise<IdleOutcome> {
  const outcome: IdleOutcome = { opened: 0, refused: 0, answered: 0 };
  while (outcome.opened < options.count) {
    const batch = await Promise.all(Array.from({ length: BATCH }, () => connectIdle(options)));
    await new Promise((r) => setTimeout(r, REFUSAL_MS));
    let batchRefused = 0;
    for (const c of batch) {
      if (c && !c.isClosed) {
        open.push(c);
        outcome.opened++;
      } else {
        if (c) outcome.answered++;
        c?.destroy();
        batchRefused++;
      }
    }
    outcome.refused += batchRefused;
    if (batchRefused === BATCH) break;
  }
  return outcome;
}

async function connectIdle(options: IdleOptions): Promise<RawConnection | null> {
  try {
    const c = await RawConnection.connect({
      port: options.port,
      localAddress: options.addresses(),
      timeoutMs: 1000,
    });
    c.send(options.request);
    return c;
  } catch {
    return null;
  }
}

/**
 * Drops from `open` the connections the service closed meanwhile (its header deadline: it
 * received them) and returns how many it closed.
 */
export function dropClosed(open: RawConnection[]): number {
  const live = open.filter((c) => !c.isClosed);
  const closed = open.length - live.length;
  for (const c of open) if (c.isClosed) c.destroy();
  open.length = 0;
  open.push(...live);
  return closed;
}
