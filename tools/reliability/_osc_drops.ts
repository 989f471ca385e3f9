/**
 * Where a stream's datagrams were lost before the service read them: the
 * kernel's count of datagrams dropped at a UDP socket (`/proc/net/udp` and
 * `/proc/net/udp6`, the `drops` column: its receive buffer was full), and
 * the receive buffer every socket gets (`net.core.rmem_default`; Deno cannot
 * set `SO_RCVBUF`, and its `node:dgram` `setRecvBufferSize` reports a size
 * the socket does not get). Linux only; elsewhere the figures are not known.
 * Deno reads `/proc` only with `--allow-all`, so `cat` reads it (`--allow-run`).
 * @module
 */

/** The text of a `/proc` file (read by `cat`), or null. */
function procText(path: string): string | null {
  try {
    const out = new Deno.Command("cat", { args: [path], stdout: "piped", stderr: "null" })
      .outputSync();
    return out.success ? new TextDecoder().decode(out.stdout) : null;
  } catch {
    return null;
  }
}

/**
 * The drops the kernel counted at the sockets bound to local `port`, summed,
 * from the text of `/proc/net/udp` (or `udp6`); 0 when none is bound there.
 */
export function udpDropsIn(text: string, port: number): number {
  const suffix = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  let drops = 0;
  for (const line of text.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 13 || !fields[1]!.endsWith(suffix)) continue;
    drops += Number(fields[fields.length - 1]) || 0;
  }
  return drops;
}

/** The kernel's drops at the UDP sockets of local `port`, or null when not known (no Linux). */
export function kernelDrops(port: number): number | null {
  let drops: number | null = null;
  for (const path of ["/proc/net/udp", "/proc/net/udp6"]) {
    const text = procText(path);
    if (text !== null) drops = (drops ?? 0) + udpDropsIn(text, port);
  }
  return drops;
}

/** The receive buffer a UDP socket gets, bytes (`net.core.rmem_default`), or null. */
export function receiveBufferBytes(): number | null {
  const bytes = Number(procText("/proc/sys/net/core/rmem_default")?.trim() ?? NaN);
  return Number.isFinite(bytes) ? bytes : null;
}
