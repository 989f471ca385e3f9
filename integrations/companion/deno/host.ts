/**
 * Runs the BUILT Companion module as Companion does: a child Node process with an IPC channel
 * (`integrations/companion/scripts/host.mjs`, the stand-in for Companion's connection
 * entrypoint), spoken to in the host protocol of `@companion-module/base` 2.x. Records what the
 * module sends: definitions, variable values, feedback values, status, saved config, log lines.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { peerProblem } from "../../../tools/peers.ts";

/** The integration's folder. */
export const COMPANION_DIR = new URL("../", import.meta.url).pathname;
/** How to build the package, in one line (`.ci/run` does it before the tests). */
export const HOW_TO_BUILD = "cd integrations/companion && npm ci && npm run build";
/** The package Companion imports, as `npm run build` leaves it. */
export const BUILT_MAIN = `${COMPANION_DIR}pkg/cueport/main.js`;

async function run(cmd: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: COMPANION_DIR,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** When a file was last changed (ms), or 0 when it is not there. */
async function mtime(path: string): Promise<number> {
  return await Deno.stat(path).then((s) => s.mtime?.getTime() ?? 0, () => 0);
}

/**
 * Makes sure the built package is there and not older than a source file, so nothing runs a
 * stale build: a stale one is built again from the installed dependencies (`npm run build`, no
 * network); with no dependencies installed it throws one line saying how to build (nothing here
 * runs `npm ci` against the registry; `.ci/run` does, before the tests).
 */
export async function ensureBuilt(): Promise<void> {
  const unfit = peerProblem("node");
  if (unfit) throw new Error(`The Companion module needs Node: ${unfit}`);
  const built = await mtime(BUILT_MAIN);
  const sources = [...Deno.readDirSync(`${COMPANION_DIR}src`)].map((e) =>
    `${COMPANION_DIR}src/${e.name}`
  );
  const newest = Math.max(
    ...await Promise.all([...sources, `${COMPANION_DIR}package-lock.json`].map(mtime)),
  );
  if (built > 0 && built >= newest) return;
  if (!(await mtime(`${COMPANION_DIR}node_modules`))) {
    const state = built > 0 ? "older than its sources" : "not built";
    throw new Error(`The Companion module is ${state}: run \`${HOW_TO_BUILD}\``);
  }
  await run("npm", ["run", "build"]);
}

/** One feedback value the module reported. */
export interface FeedbackValue {
  id: string;
  controlId: string;
  feedbackType: string;
  // deno-lint-ignore no-explicit-any
  value: any;
}

interface Packet {
  direction: "call" | "response";
  name?: string;
  // deno-lint-ignore no-explicit-any
  payload?: any;
  callbackId?: number;
  success?: boolean;
}

/** The host side of one module process. */
export class ModuleHost {
  readonly variables = new Map<string, unknown>();
  readonly feedbackValues = new Map<string, FeedbackValue>();
  /** When each feedback's value last arrived (performance.now(), ms). */
  readonly feedbackTimes = new Map<string, number>();
  // deno-lint-ignore no-explicit-any
  actions: Record<string, any> = {};
  // deno-lint-ignore no-explicit-any
  feedbacks: Record<string, any> = {};
  variableDefinitions: { id: string; name: string }[] = [];
  // deno-lint-ignore no-explicit-any
  presets: { structure: any[]; presets: Record<string, any> } = { structure: [], presets: {} };
  status: { status: string; message: string | null } = { status: "", message: null };
  readonly logs: string[] = [];
  // deno-lint-ignore no-explicit-any
  readonly savedConfigs: { config: any; secrets: any }[] = [];
  /** Every message name from the module, in order, with the time it arrived (ms, performance.now). */
  readonly received: { name: string; at: number }[] = [];
  readonly #child: ChildProcess;
  #nextId = 1;
  // deno-lint-ignore no-explicit-any
  readonly #pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  readonly #listeners = new Set<() => void>();
  readonly #exited: Promise<void>;

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.#exited = new Promise((resolve) =>
      child.once("exit", () => {
        for (const p of this.#pending.values()) p.reject(new Error("The module process exited"));
        this.#pending.clear();
        resolve();
      })
    );
    child.on("message", (msg) => this.#onPacket(msg as Packet));
  }

  /** Starts the built module in a Node child with an IPC channel; resolves once it is constructed. */
  static async start(): Promise<ModuleHost> {
    await ensureBuilt();
    const child = spawn("node", [`${COMPANION_DIR}scripts/host.mjs`], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      env: { MODULE_ENTRYPOINT: BUILT_MAIN, VERIFICATION_TOKEN: "test-token" },
    });
    const host = new ModuleHost(child);
    child.stderr?.on(
      "data",
      (chunk: Uint8Array) => host.logs.push(`stderr: ${new TextDecoder().decode(chunk)}`),
    );
    await host.until(
      () => host.received.some((r) => r.name === "ready"),
      "the module to be constructed",
    );
    return host;
  }

  /** Calls the module (`init`, `executeAction`, `updateFeedbacks`...) and waits for its answer. */
  // deno-lint-ignore no-explicit-any
  call(name: string, payload: unknown, timeoutMs = 15_000): Promise<any> {
    const callbackId = this.#nextId++;
    const answer = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(callbackId);
        reject(
          new Error(
            `${name}: no answer in ${timeoutMs} ms; log:\n${this.logs.slice(-10).join("\n")}`,
          ),
        );
      }, timeoutMs);
      this.#pending.set(callbackId, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
    });
    this.#child.send({ direction: "call", name, payload, callbackId });
    return answer;
  }

  /** `init` as Companion sends it. */
  init(
    config: Record<string, unknown>,
    secrets: Record<string, unknown> = { token: "" },
  ): Promise<unknown> {
    return this.call("init", {
      label: "cueport",
      isFirstInit: false,
      config,
      secrets,
      lastUpgradeIndex: -1,
    });
  }

  /** Presses a button: `executeAction` of one action instance. */
  executeAction(
    actionId: string,
    options: Record<string, unknown>,
  ): Promise<{ success: boolean; errorMessage?: string }> {
    const id = `a${this.#nextId}`;
    return this.call("executeAction", {
      action: { id, actionId, controlId: "bank:1:1", options },
      surfaceId: undefined,
    });
  }

  /** Places feedbacks on keys (`updateFeedbacks`); `image` is the key's size for advanced ones. */
  placeFeedbacks(
    feedbacks: Record<
      string,
      {
        feedbackId: string;
        options: Record<string, unknown>;
        image?: { width: number; height: number };
      }
    >,
  ): Promise<unknown> {
    const map: Record<string, unknown> = {};
    for (const [id, f] of Object.entries(feedbacks)) map[id] = { id, controlId: `key-${id}`, ...f };
    return this.call("updateFeedbacks", { feedbacks: map });
  }

  /** Waits until `check` returns something truthy (each message from the module re-checks it). */
  until<T>(
    check: () => T | undefined | null | false,
    what: string,
    timeoutMs = 15_000,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const test = () => {
        const value = check();
        if (!value) return false;
        done();
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `Timed out waiting for ${what}; status ${JSON.stringify(this.status)}; log:\n${
              this.logs.slice(-10).join("\n")
            }`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
      };
      const listener = () => void test();
      if (test()) return;
      this.#listeners.add(listener);
    });
  }

  /** Ends the module (`destroy`, then the process). */
  async stop(): Promise<void> {
    await this.call("destroy", {}, 5_000).catch(() => {});
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill("SIGTERM");
    }
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 5_000);
    await this.#exited;
    clearTimeout(timer);
  }

  #onPacket(packet: Packet): void {
    if (packet.direction === "response") {
      const pending = this.#pending.get(packet.callbackId!);
      this.#pending.delete(packet.callbackId!);
      if (pending) {
        if (packet.success) pending.resolve(packet.payload);
        else pending.reject(new Error(packet.payload?.message ?? "call failed"));
      }
      return;
    }
    const name = packet.name ?? "";
    this.received.push({ name, at: performance.now() });
    this.#apply(name, packet.payload);
    if (packet.callbackId) {
      // `register`: the only call the module makes that wants an answer here.
      this.#child.send({
        direction: "response",
        callbackId: packet.callbackId,
        success: true,
        payload: { connectionId: "cueport-test" },
      });
    }
    for (const listener of [...this.#listeners]) listener();
  }

  // deno-lint-ignore no-explicit-any
  #apply(name: string, payload: any): void {
    switch (name) {
      case "setActionDefinitions":
        this.actions = payload.actions;
        break;
      case "setFeedbackDefinitions":
        this.feedbacks = payload.feedbacks;
        break;
      case "setVariableDefinitions":
        this.variableDefinitions = payload.variables;
        break;
      case "setVariableValues":
        for (const { id, value } of payload.newValues) this.variables.set(id, value);
        break;
      case "updateFeedbackValues":
        for (const v of payload.values) {
          this.feedbackValues.set(v.id, v);
          this.feedbackTimes.set(v.id, performance.now());
        }
        break;
      case "setPresetDefinitions":
        this.presets = payload;
        break;
      case "set-status":
        this.status = payload;
        break;
      case "saveConfig":
        this.savedConfigs.push(payload);
        break;
      case "log-message":
        this.logs.push(`${payload.level}: ${payload.message}`);
        break;
    }
  }
}
