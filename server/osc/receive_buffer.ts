/**
 * The kernel's UDP receive buffer, which decides how long a stream of OSC
 * datagrams may wait for the port's reader (`server/net/udp_port.ts`). Deno's
 * UDP sockets cannot ask for a larger one (`SO_RCVBUF`), so every socket gets
 * the system default: on Linux `net.core.rmem_default`, often 208 KiB, some
 * 200 small datagrams, or 10 ms of a 20,000/s stream. The reader is a worker
 * that only reads, so the service's own pauses no longer count; a machine
 * held up for longer than that (a busy or shared VM) still loses datagrams
 * at 208 KiB, and none at 4 MiB (docs/osc.md, "Speed").
 * @module
 */

/** Below this default, a start-up line says how to raise it. */
export const ADVISED_RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

/** The system's default UDP receive buffer in bytes (Linux), or null where it cannot be read. */
export function receiveBufferBytes(
  path = "/proc/sys/net/core/rmem_default",
): number | null {
  try {
    // Through cat: Deno asks for --allow-all to read /proc/sys itself.
    const out = new Deno.Command("cat", { args: [path], stderr: "null" }).outputSync();
    if (!out.success) return null;
    const bytes = Number(new TextDecoder().decode(out.stdout).trim());
    return Number.isFinite(bytes) && bytes > 0 ? bytes : null;
  } catch {
    return null;
  }
}

/** The start-up advice when the default is small, else null. */
export function receiveBufferAdvice(bytes: number | null): string | null {
  if (bytes === null || bytes >= ADVISED_RECEIVE_BUFFER_BYTES) return null;
  return `OSC: the system's UDP receive buffer is ${Math.round(bytes / 1024)} KiB; ` +
    `a fast stream (a fader at thousands of messages a second) may lose datagrams when the ` +
    `machine is held up for over 10 ms. ` +
    `Raise it with: sysctl -w net.core.rmem_default=${ADVISED_RECEIVE_BUFFER_BYTES} ` +
    `(docs/osc.md, "Speed")`;
}
