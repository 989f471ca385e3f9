/** An OSC peer for tests: one UDP socket on a loopback address that sends and reads replies. */
import * as osc from "osc-min";

/** A decoded message received by the peer. */
export interface Received {
  address: string;
  // deno-lint-ignore no-explicit-any
  args: any[];
}

/** A UDP socket on `hostname` (127.0.0.2 is remote to the service). */
export class OscPeer {
  #socket: Deno.DatagramConn;
  #queue: Received[] = [];
  #waiters: Array<() => void> = [];
  #reading: Promise<void>;
  readonly port: number;

  private constructor(socket: Deno.DatagramConn, private target: number) {
    this.#socket = socket;
    this.port = (socket.addr as Deno.NetAddr).port;
    this.#reading = this.#read();
  }

  /** Opens a peer that talks to the OSC port `target`. */
  static open(target: number, hostname = "127.0.0.1"): OscPeer {
    return new OscPeer(Deno.listenDatagram({ transport: "udp", hostname, port: 0 }), target);
  }

  async #read(): Promise<void> {
    try {
      for await (const [data] of this.#socket) {
        const packet = osc.fromBuffer(data);
        const messages = packet.oscType === "message" ? [packet] : [];
        for (const m of messages) {
          this.#queue.push({
            address: m.address,
            args: m.args.map((a) => "value" in a ? a.value : null),
          });
        }
        for (const wake of this.#waiters.splice(0)) wake();
      }
    } catch {
      // closed
    }
  }

  /** Sends raw bytes. */
  async raw(bytes: Uint8Array<ArrayBuffer>): Promise<void> {
    await this.#socket.send(bytes, { transport: "udp", hostname: "127.0.0.1", port: this.target });
  }

  /** Sends one message (args as osc-min takes them: numbers are floats, {type, value} for others). */
  async send(address: string, args: osc.OscArgOrArrayInput[] = []): Promise<void> {
    const view = osc.toBuffer({ address, args });
    await this.raw(new Uint8Array(view.buffer as ArrayBuffer, view.byteOffset, view.byteLength));
  }

  /** The next received message that `test` accepts (earlier ones are dropped); rejects after 10 s. */
  async next(test: (m: Received) => boolean = () => true, timeoutMs = 10_000): Promise<Received> {
    const deadline = performance.now() + timeoutMs;
    while (true) {
      while (this.#queue.length > 0) {
        const m = this.#queue.shift()!;
        if (test(m)) return m;
      }
      const left = deadline - performance.now();
      if (left <= 0) throw new Error("No OSC message came");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The reply to `address`, parsed. */
  // deno-lint-ignore no-explicit-any
  async reply(address: string): Promise<any> {
    const m = await this.next((m) => m.address === `/reply${address}`);
    return JSON.parse(m.args[0]);
  }

  /** Sends a message with `reply` and returns the parsed reply. */
  // deno-lint-ignore no-explicit-any
  async ask(address: string, args: osc.OscArgOrArrayInput[] = []): Promise<any> {
    await this.send(address, [...args, "reply"]);
    return await this.reply(address);
  }

  /** Messages received and not yet taken. */
  get pending(): Received[] {
    return [...this.#queue];
  }

  /** Closes the socket. */
  async close(): Promise<void> {
    this.#socket.close();
    await this.#reading;
  }
}

/** Runs liblo's `oscsend` to the service (`oscsend host port address types args...`). */
export async function oscsend(
  port: number,
  address: string,
  types = "",
  ...args: string[]
): Promise<void> {
  const out = await new Deno.Command("oscsend", {
    args: ["127.0.0.1", String(port), address, ...(types ? [types, ...args] : [])],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`oscsend failed: ${new TextDecoder().decode(out.stderr)}`);
}

/** Runs liblo's `oscdump` on a free UDP port; `lines()` gives what it printed so far. */
export class OscDump {
  #child: Deno.ChildProcess;
  #text = "";
  #done: Promise<void>;
  private constructor(child: Deno.ChildProcess, readonly port: number) {
    this.#child = child;
    this.#done = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stdout) this.#text += decoder.decode(chunk);
    })();
  }

  /** Starts oscdump on a port that was free a moment ago, and waits until it listens. */
  static async start(): Promise<OscDump> {
    const probe = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    const child = new Deno.Command("oscdump", {
      args: ["-L", String(port)],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const dump = new OscDump(child, port);
    // It listens once it answers: send pings it prints, until one shows.
    const pinger = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
    try {
      const ping = osc.toBuffer({ address: "/oscdump/ready", args: [] });
      const bytes = new Uint8Array(ping.buffer as ArrayBuffer, ping.byteOffset, ping.byteLength);
      for (let i = 0; i < 500 && !dump.#text.includes("/oscdump/ready"); i++) {
        await pinger.send(bytes, { transport: "udp", hostname: "127.0.0.1", port });
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      pinger.close();
    }
    if (!dump.#text.includes("/oscdump/ready")) throw new Error("oscdump did not start");
    return dump;
  }

  /** Lines printed so far, without the timestamp column and the readiness pings. */
  lines(): string[] {
    return this.#text.split("\n").filter(Boolean).map((l) => l.replace(/^\S+ /, "")).filter((l) =>
      !l.startsWith("/oscdump/ready")
    );
  }

  /** Stops oscdump. */
  async stop(): Promise<void> {
    this.#child.kill("SIGTERM");
    await this.#done;
    await this.#child.status;
  }
}
