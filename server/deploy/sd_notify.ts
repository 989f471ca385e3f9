/**
 * systemd's readiness protocol (`sd_notify(3)`): datagrams such as `READY=1`
 * to the unix socket named by `NOTIFY_SOCKET`, and `WATCHDOG=1` pings every
 * half `WATCHDOG_USEC` when the unit sets `WatchdogSec`.
 *
 * Deno 2.9 sends unix datagrams with `Deno.listenDatagram({ transport:
 * "unixpacket" })` (a `SOCK_DGRAM` socket bound to a path; deno.json's
 * `"unstable": ["net"]`, which the compiled binary embeds). Sending from the
 * service's own process matters: with `NotifyAccess=main` systemd accepts
 * only the main pid, which is why shelling out to `systemd-notify` is not used
 * (its pid is another, and it may exit before systemd reads its cgroup).
 * @module
 */

/** Where readiness goes, read from the environment systemd gives the service. */
export interface NotifyTarget {
  /** The `NOTIFY_SOCKET` path. */
  socket: string;
  /** Half of `WATCHDOG_USEC`, in ms, when the watchdog is on for this process. */
  watchdogIntervalMs: number | null;
}

/** The notify target from the environment, or null when not started by systemd with `Type=notify`. */
export function notifyTarget(
  env: (name: string) => string | undefined,
  pid: number = Deno.pid,
): NotifyTarget | null {
  const socket = env("NOTIFY_SOCKET");
  if (!socket) return null;
  const usec = Number(env("WATCHDOG_USEC"));
  const watchdogPid = env("WATCHDOG_PID");
  const isOurs = watchdogPid === undefined || Number(watchdogPid) === pid;
  const watchdogIntervalMs = Number.isFinite(usec) && usec > 0 && isOurs ? usec / 2000 : null;
  return { socket, watchdogIntervalMs };
}

/** Sends sd_notify states to systemd. */
export class SystemdNotifier {
  #target: NotifyTarget;
  #conn: Deno.DatagramConn | null = null;
  #dir: string | null = null;
  #watchdog: ReturnType<typeof setInterval> | undefined;
  #log: (message: string) => void;

  /** A notifier for `target`; failures go to `log` (readiness is best effort, never fatal). */
  constructor(target: NotifyTarget, log: (message: string) => void) {
    this.#target = target;
    this.#log = log;
  }

  /** Sends one state, such as `READY=1` or `STOPPING=1` (several: one per line). */
  async notify(state: string): Promise<boolean> {
    try {
      const conn = await this.#open();
      await conn.send(new TextEncoder().encode(state), {
        transport: "unixpacket",
        path: this.#target.socket,
      });
      return true;
    } catch (error) {
      this.#log(`sd_notify to ${this.#target.socket} failed: ${(error as Error).message}`);
      return false;
    }
  }

  /** `READY=1` with a status line, then watchdog pings if the unit asks for them. */
  async ready(status: string): Promise<void> {
    await this.notify(`READY=1\nSTATUS=${status}\nMAINPID=${Deno.pid}`);
    const interval = this.#target.watchdogIntervalMs;
    if (interval !== null && this.#watchdog === undefined) {
      this.#watchdog = setInterval(() => void this.notify("WATCHDOG=1"), interval);
    }
  }

  /** `STOPPING=1`; stops the watchdog pings. */
  async stopping(): Promise<void> {
    clearInterval(this.#watchdog);
    await this.notify("STOPPING=1");
  }

  /** Closes the socket and removes its folder. */
  close(): void {
    clearInterval(this.#watchdog);
    try {
      this.#conn?.close();
    } catch { /* closed */ }
    if (this.#dir) Deno.removeSync(this.#dir, { recursive: true });
    this.#conn = null;
    this.#dir = null;
  }

  async #open(): Promise<Deno.DatagramConn> {
    if (this.#conn) return this.#conn;
    if (this.#target.socket.startsWith("@")) {
      throw new Error("abstract notify sockets are not supported; systemd uses a path by default");
    }
    if (typeof Deno.listenDatagram !== "function") {
      throw new Error("this build lacks Deno's unstable net API (deno.json, unstable: net)");
    }
    // Deno sends unix datagrams only from a socket bound to a path: a private folder holds it.
    this.#dir = await Deno.makeTempDir({ prefix: "cueport-notify-" });
    this.#conn = Deno.listenDatagram({ transport: "unixpacket", path: `${this.#dir}/s` });
    return this.#conn;
  }
}
