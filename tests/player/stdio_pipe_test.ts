import assert from "node:assert/strict";
import { takeFirstLine } from "../../player/stdio_pipe.ts";
import type { BytePipe } from "../../protocol/transport.ts";

/** A pipe that reads `chunks` in turn, then ends. */
function pipeOf(chunks: Uint8Array[]): BytePipe {
  return {
    read: () => Promise.resolve(chunks.shift() ?? null),
    write: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

Deno.test("takeFirstLine() joins a line read in pieces, a character split between two", async () => {
  const bytes = new TextEncoder().encode('["--data-dir","/shows/caf\u00e9"]\n{"id":1}\n');
  const split = bytes.indexOf(0xc3) + 1; // inside the two bytes of the e with an acute accent
  const { line, rest } = await takeFirstLine(
    pipeOf([bytes.slice(0, split), bytes.slice(split)]),
  );
  assert.deepEqual(JSON.parse(line), ["--data-dir", "/shows/caf\u00e9"]);
  // What came after the line in the same read is read first, then the pipe goes on.
  assert.equal(new TextDecoder().decode((await rest.read())!), '{"id":1}\n');
  assert.equal(await rest.read(), null);
});

Deno.test("takeFirstLine() passes on the pipe's kept-buffer writer (the player started with --flags-on-stdin writes through it)", async () => {
  const written: string[] = [];
  const pipe: BytePipe = {
    ...pipeOf([new TextEncoder().encode('["--x"]\n')]),
    writeText: (text) => {
      written.push(text);
      return Promise.resolve();
    },
  };
  const { rest } = await takeFirstLine(pipe);
  assert.ok(rest.writeText, "the pipe after the flags line has no writeText");
  await rest.writeText('{"id":1}\n');
  assert.deepEqual(written, ['{"id":1}\n']);
});

Deno.test("takeFirstLine() refuses a pipe that ends before the line", async () => {
  await assert.rejects(
    takeFirstLine(pipeOf([new TextEncoder().encode("[")])),
    /stdin ended before the flags line/,
  );
});

Deno.test("takeFirstLine() hands a listener what came after the line first, then the pipe's reads", async () => {
  const encoder = new TextEncoder();
  const heard: string[] = [];
  const pipe: BytePipe = {
    ...pipeOf([encoder.encode('["--x"]\n{"id":1}\n')]),
    listen(onBytes) {
      onBytes(encoder.encode('{"id":2}\n'));
      return Promise.resolve();
    },
  };
  const { line, rest } = await takeFirstLine(pipe);
  assert.equal(line, '["--x"]');
  await rest.listen!((bytes) => heard.push(new TextDecoder().decode(bytes)));
  assert.deepEqual(heard, ['{"id":1}\n', '{"id":2}\n']);
});

Deno.test({
  name: "stdioPipe() on a pipe: a LineTransport listens, every line whole across many reads",
  ignore: Deno.build.os === "windows",
  async fn() {
    // An echo of the request lines through the player's own pipe and line reader.
    const script = `
      import { stdioPipe } from ${
      JSON.stringify(new URL("../../player/stdio_pipe.ts", import.meta.url).href)
    };
      import { LineTransport } from ${
      JSON.stringify(new URL("../../protocol/transport.ts", import.meta.url).href)
    };
      const transport = new LineTransport(stdioPipe());
      transport.onmessage = (m) => void transport.send(m);
      await transport.start();
      await transport.close();
    `;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", "--ext=ts", script],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    // 4,000 lines of 100 to 300 bytes in one write: several 64 KiB reads into one buffer.
    const sent = Array.from(
      { length: 4000 },
      (_, id) => JSON.stringify({ jsonrpc: "2.0", id, method: "m", params: "x".repeat(id % 200) }),
    );
    // Read while writing: the echo blocks on a full stdout, as the player does.
    const output = new Response(child.stdout).text();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(sent.join("\n") + "\n"));
    await writer.close();
    assert.equal((await child.status).code, 0);
    assert.deepEqual((await output).split("\n").slice(0, -1), sent);
  },
});

Deno.test({
  name: "stdioPipe().writeText() writes each text whole, in order, through one kept buffer",
  ignore: Deno.build.os === "windows",
  async fn() {
    // Texts short and long (a snapshot's is over the kept buffer), characters of 1 to 4 bytes.
    const textsOf = () => [
      "a\n",
      "caf\u00e9 \u{1f3b5}\n",
      "x".repeat(100_000) + "\n",
      "\u00e9".repeat(30_000) + "\n",
      "z\n",
    ];
    const script = `
      import { stdioPipe } from ${
      JSON.stringify(new URL("../../player/stdio_pipe.ts", import.meta.url).href)
    };
      const pipe = stdioPipe();
      for (const text of (${textsOf})()) await pipe.writeText!(text);
      await pipe.close();
    `;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", "--ext=ts", script],
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const output = await new Response(child.stdout).text();
    assert.equal((await child.status).code, 0);
    assert.equal(output, textsOf().join(""));
  },
});
