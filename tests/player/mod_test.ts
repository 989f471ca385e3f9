import assert from "node:assert/strict";
import { fixtureDataDir } from "../../tools/testing/fixture.ts";
import { readPlayerFlags } from "../../player/mod.ts";
import { bundledPlayerFlags } from "../../server/player_client/spawn.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PLAYER = [Deno.execPath(), "run", "--allow-read", "--allow-write", MAIN, "player"];

/** The bundled player as a process, its stdin and stdout piped. */
function spawnPlayer(dataDir: string): Deno.ChildProcess {
  const [program, ...args] = PLAYER;
  return new Deno.Command(program!, {
    args: [...args, "--data-dir", dataDir],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
}

Deno.test({
  name: "runPlayerStdio() ignores SIGINT, serves stdin/stdout and exits when stdin closes",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dataDir = await fixtureDataDir();
    const child = spawnPlayer(dataDir);
    try {
      const writer = child.stdin.getWriter();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      // The next answer; notifications (the local MIDI ports after `initialize`) are passed over.
      let pending = "";
      // deno-lint-ignore no-explicit-any
      const line = async (): Promise<any> => {
        for (;;) {
          const end = pending.indexOf("\n");
          if (end >= 0) {
            const message = JSON.parse(pending.slice(0, end));
            pending = pending.slice(end + 1);
            if ("id" in message) return message;
            continue;
          }
          const { value, done } = await reader.read();
          if (done) throw new Error("The player closed its output");
          pending += value;
        }
      };
      const send = (msg: unknown) =>
        writer.write(new TextEncoder().encode(JSON.stringify(msg) + "\n"));
      await send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "1.0", client: { name: "t", version: "0" } },
      });
      assert.equal((await line()).result.player.name, "cueport-player");
      child.kill("SIGINT"); // a Ctrl-C meant for the service
      await send({ jsonrpc: "2.0", id: 2, method: "state.get" });
      const snapshot = await line();
      assert.equal(snapshot.id, 2);
      assert.equal(snapshot.result.projects[0].id, "show");
      await writer.close();
      assert.equal((await child.status).code, 0);
      await reader.cancel();
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "runPlayerStdio() exits after answering shutdown, with its stdin still open",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dataDir = await fixtureDataDir();
    const child = spawnPlayer(dataDir);
    const writer = child.stdin.getWriter();
    let guard: ReturnType<typeof setTimeout> | undefined;
    try {
      const lines = [
        { id: 1, method: "initialize", params: { protocolVersion: "1.0" } },
        { id: 2, method: "shutdown" },
      ].map((m) => JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n").join("");
      await writer.write(new TextEncoder().encode(lines));
      // A stdin read still pending must not keep the process alive: it exits by itself.
      const hung = new Promise<"hung">((resolve) =>
        guard = setTimeout(() => resolve("hung"), 10_000)
      );
      const status = await Promise.race([child.status, hung]);
      assert.notEqual(status, "hung");
      assert.equal((status as Deno.CommandStatus).code, 0);
      const out = new TextDecoder().decode(await new Response(child.stdout).arrayBuffer());
      const answers = out.trim().split("\n").map((l) => JSON.parse(l)).filter((m) => "id" in m);
      assert.deepEqual(answers.map((m) => m.id), [1, 2]);
    } finally {
      clearTimeout(guard);
      await writer.close().catch(() => {});
      try {
        child.kill();
      } catch {
        // already exited
      }
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "runPlayerStdio() answers requests read from a file on stdin, then exits at its end",
  ignore: Deno.build.os === "windows",
  async fn() {
    // A pipe is read as a socket; a file cannot be, and takes the other path.
    const dataDir = await fixtureDataDir();
    const input = `${dataDir}/requests.jsonl`;
    try {
      await Deno.writeTextFile(
        input,
        [
          { id: 1, method: "initialize", params: { protocolVersion: "1.0" } },
          { id: 2, method: "state.get" },
        ].map((m) => JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n").join(""),
      );
      const { code, stdout } = await new Deno.Command("sh", {
        args: ["-c", `exec "$@" < "${input}"`, "sh", ...PLAYER, "--data-dir", dataDir],
        stderr: "null",
      }).output();
      assert.equal(code, 0);
      const answers = new TextDecoder().decode(stdout).trim().split("\n").map((l) => JSON.parse(l))
        .filter((m) => "id" in m); // the local MIDI ports are told after `initialize`
      assert.deepEqual(answers.map((a) => a.id), [1, 2]);
      assert.equal(answers[1].result.projects[0].id, "show");
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "runPlayerStdio() refuses a request line too long or too deep with -32600, and reads on",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dataDir = await fixtureDataDir();
    const child = spawnPlayer(dataDir);
    const writer = child.stdin.getWriter();
    try {
      const line = (message: unknown) => JSON.stringify({ jsonrpc: "2.0", ...message as object });
      const requests = [
        line({ id: 1, method: "initialize", params: { protocolVersion: "1.1" } }),
        line({ id: 9, method: "state.get", params: { pad: "a".repeat(17 * 1024 * 1024) } }),
        `{"jsonrpc":"2.0","id":8,"method":"state.get","params":${"[".repeat(100_000)}}`,
        line({ id: 2, method: "state.get" }),
      ].join("\n") + "\n";
      // Written in 1 MiB steps: the player reads the pipe in 64 KiB ones, pausing in between.
      const bytes = new TextEncoder().encode(requests);
      const written = (async () => {
        for (let at = 0; at < bytes.length; at += 1 << 20) {
          await writer.write(bytes.subarray(at, at + (1 << 20)));
        }
      })();
      const answers: Array<{ id: number | null; error?: { code: number; message: string } }> = [];
      let rest = "";
      for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) {
        const lines = (rest + text).split("\n");
        rest = lines.pop()!;
        // Answers only: the local MIDI ports are told after `initialize`.
        answers.push(...lines.map((l) => JSON.parse(l)).filter((m) => "id" in m));
        if (answers.some((a) => a.id === 2)) break;
      }
      await written;
      assert.deepEqual(answers.map((a) => [a.id, a.error?.code]), [
        [1, undefined],
        [null, -32600],
        [null, -32600],
        [2, undefined],
      ]);
      assert.match(answers[1]!.error!.message, /^Request line too long: over 16777216 bytes$/);
      assert.match(answers[2]!.error!.message, /^Request nested too deep/);
    } finally {
      await writer.close().catch(() => {});
      await child.status;
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "runPlayerStdio() --flags-on-stdin: the first line gives the flags, what follows it is served",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dataDir = await fixtureDataDir();
    const [program, ...args] = PLAYER;
    const child = new Deno.Command(program!, {
      args: [...args, "--flags-on-stdin"],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    try {
      // The flags and the first requests in one write: the player splits them.
      const lines = [
        JSON.stringify(["--data-dir", dataDir]),
        ...[
          { id: 1, method: "initialize", params: { protocolVersion: "1.0" } },
          { id: 2, method: "state.get" },
          { id: 3, method: "shutdown" },
        ].map((m) => JSON.stringify({ jsonrpc: "2.0", ...m })),
      ].join("\n") + "\n";
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(lines));
      await writer.close();
      const status = await child.status;
      assert.equal(status.code, 0);
      const out = new TextDecoder().decode(await new Response(child.stdout).arrayBuffer());
      const answers = out.trim().split("\n").map((l) => JSON.parse(l)).filter((m) => "id" in m);
      assert.equal(answers.find((a) => a.id === 1).result.player.name, "cueport-player");
      assert.equal(answers.find((a) => a.id === 2).result.projects[0].id, "show");
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "runPlayerStdio() --flags-on-stdin: a flags line that is no list of strings is refused, exit 2",
  ignore: Deno.build.os === "windows",
  async fn() {
    const [program, ...args] = PLAYER;
    const child = new Deno.Command(program!, {
      args: [...args, "--flags-on-stdin"],
      stdin: "piped",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode('{"data-dir": "/tmp"}\n'));
    await writer.close();
    const { code, stderr } = await child.output();
    assert.equal(code, 2);
    assert.match(new TextDecoder().decode(stderr), /flags line must be a JSON array of strings/);
  },
});

Deno.test("--service-started-at, which the service gives each player it spawns, reaches the player's options", () => {
  const flags = bundledPlayerFlags({ dataDir: "/tmp/x" }, 1_780_000_000_123);
  assert.deepEqual(flags.slice(-2), ["--service-started-at", "1780000000123"]);
  const read = readPlayerFlags(flags);
  assert.ok(!read.help);
  assert.equal(read.serviceStartedAt, 1_780_000_000_123);
  assert.deepEqual(Object.keys(readPlayerFlags(["--data-dir", "/x"])), ["help", "settings"]);
  assert.throws(
    () => readPlayerFlags(["--data-dir", "/x", "--service-started-at", "soon"]),
    /invalid --service-started-at: soon/,
  );
});
