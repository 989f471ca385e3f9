/**
 * The output server's sockets found as a local program finds them: the TCP
 * ports listening on the loopback that the player or its browser own (their
 * fds, `/proc/net/tcp`), and the page's address where a command line shows
 * it (`ps`). Every port is tried at `/ws` and `/editor-ws`, and each address
 * found at its own `ws` and `editor-ws`, with the `Origin` and `Host` of the
 * output's own page (a program, unlike a browser, writes any header).
 * @module
 */
import { descendants, listeningNow, processes, socketInodes } from "./_process_tree.ts";
import { WsClient } from "./_ws.ts";

/** A WebSocket address to try. */
export interface SocketTarget {
  port: number;
  path: string;
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.|0\.0\.0\.0$|::$)/;

/** The output's socket addresses to try, for the player `player`. */
export async function outputSocketTargets(player: number): Promise<SocketTarget[]> {
  const tree = [player, ...(await descendants(player)).map((r) => r.pid)];
  const inodes = await socketInodes(tree);
  const ports = new Set(
    (await listeningNow()).filter((l) => inodes.has(l.inode) && LOOPBACK.test(l.address)).map((l) =>
      l.port
    ),
  );
  const targets = new Map<string, SocketTarget>();
  const add = (port: number, path: string) => targets.set(`${port}${path}`, { port, path });
  for (const port of ports) for (const name of ["ws", "editor-ws"]) add(port, `/${name}`);
  const treeSet = new Set(tree);
  for (const row of await processes()) {
    if (!treeSet.has(row.pid)) continue;
    for (const m of row.args.matchAll(/https?:\/\/127\.0\.0\.1:(\d+)(\/[^\s"']*)?/g)) {
      const port = Number(m[1]);
      const base = (m[2] ?? "/").replace(/[^/]*$/, "");
      if (ports.has(port)) { for (const name of ["ws", "editor-ws"]) add(port, `${base}${name}`); }
    }
  }
  return [...targets.values()];
}

/** The targets tried: the ones that admitted the program, with their sockets. */
export interface Admitted {
  open: { target: SocketTarget; client: WsClient }[];
  /** Handshakes the output server answered (101, or a refusal with a status): it received them. */
  answered: number;
}

/** Opens every target that admits a program; the ones that did, and how many answered. */
export async function admitted(targets: readonly SocketTarget[]): Promise<Admitted> {
  const result: Admitted = { open: [], answered: 0 };
  for (const target of targets) {
    const origin = `http://127.0.0.1:${target.port}`;
    try {
      const client = await WsClient.open({
        port: target.port,
        path: target.path,
        headers: { origin },
        timeoutMs: 3000,
      });
      result.open.push({ target, client });
      result.answered++;
    } catch (error) {
      // Refused: what the output's sockets should do to a program; answered if with a status.
      if (/handshake answered \d{3}/.test((error as Error).message)) result.answered++;
    }
  }
  return result;
}
