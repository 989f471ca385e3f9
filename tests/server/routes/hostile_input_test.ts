import assert from "node:assert/strict";
import net from "node:net";
import { Hono } from "hono";
import { CueportError } from "../../../server/core/mod.ts";
import { errorAnswer } from "../../../server/net/http_error.ts";
import { startTestService } from "../../../tools/testing/service.ts";

/** A raw HTTP answer: the status, the head, and the JSON body if there is one. */
interface RawAnswer {
  status: number | null;
  head: string;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/**
 * Sends `data` from `localAddress` over a fresh TCP connection (half-closed
 * after sending when `isHalfClosed`) and resolves with the first final answer,
 * once its body is in or the connection closes.
 */
function exchange(
  port: number,
  data: string,
  options: { isHalfClosed?: boolean; localAddress?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      host: "127.0.0.1",
      port,
      localAddress: options.localAddress ?? "127.0.0.1",
    });
    let text = "";
    const parse = (): RawAnswer | null => {
      // Interim answers (100 Continue) come before the final one.
      const final = text.replace(/^(HTTP\/1\.1 1\d\d [^\r]*\r\n\r\n)+/, "");
      const end = final.indexOf("\r\n\r\n");
      if (end < 0) return null;
      const head = final.slice(0, end);
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
      const rest = final.slice(end + 4);
      if (!(rest.length >= length)) return null;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? NaN);
      return { status, head, body: length > 0 ? JSON.parse(rest.slice(0, length)) : null };
    };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
      const answer = parse();
      if (answer) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(parse() ?? { status: null, head: text, body: null }));
    socket.on("connect", () => {
      socket.write(data);
      if (options.isHalfClosed) socket.end();
    });
  });
}

/** The lines the service logs at error level while `fn` runs (its logger writes to stderr). */
async function errorLogsDuring(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const writeSync = Deno.stderr.writeSync;
  const decoder = new TextDecoder();
  Deno.stderr.writeSync = (bytes: Uint8Array) => {
    const line = decoder.decode(bytes);
    if (/ ERROR /.test(line)) lines.push(line);
    return writeSync.call(Deno.stderr, bytes);
  };
  try {
    await fn();
  } finally {
    Deno.stderr.writeSync = writeSync;
  }
  return lines;
}

function nested(depth: number, open = "[", close = "]"): string {
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
}

Deno.test("POST /api/v1/action from a client that hangs up mid-body: 400 INVALID_MESSAGE, no server error logged", async () => {
  const svc = await startTestService();
  try {
    const port = svc.service.ports.http;
    const host = `host: 127.0.0.1:${port}\r\n`;
    const answers: RawAnswer[] = [];
    const logs = await errorLogsDuring(async () => {
      // A declared length never reached, then a chunked body that never ends.
      answers.push(
        await exchange(
          port,
          `POST /api/v1/action HTTP/1.1\r\n${host}content-length: 5000\r\n\r\n{"name":`,
          { isHalfClosed: true },
        ),
      );
      answers.push(
        await exchange(
          port,
          `POST /api/v1/edit HTTP/1.1\r\n${host}transfer-encoding: chunked\r\n\r\n8\r\n{"name":`,
          { isHalfClosed: true },
        ),
      );
      // Headers that promise a body (Expect: 100-continue), then nothing.
      answers.push(
        await exchange(
          port,
          `POST /api/v1/action HTTP/1.1\r\n${host}expect: 100-continue\r\ncontent-length: 20\r\n\r\n`,
          { isHalfClosed: true },
        ),
      );
    });
    for (const answer of answers) {
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.body, {
        error: {
          code: "INVALID_MESSAGE",
          message: "Invalid body: the client closed the connection before the end",
          details: { field: "body" },
        },
      });
    }
    assert.deepEqual(logs, []);
    assert.equal((await svc.get("/health")).status, 200);
  } finally {
    await svc.stop();
  }
});

Deno.test("POST /api/v1/action with a chunk size line over 4 KiB (a long chunk extension): 400 INVALID_MESSAGE", async () => {
  const svc = await startTestService();
  try {
    const port = svc.service.ports.http;
    const head = `POST /api/v1/action HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n` +
      "transfer-encoding: chunked\r\n\r\n";
    let answer: RawAnswer | undefined;
    const logs = await errorLogsDuring(async () => {
      answer = await exchange(port, `${head}1;${"x".repeat(10_000)}\r\n{\r\n0\r\n\r\n`);
    });
    assert.equal(answer?.status, 400);
    assert.equal(answer?.body.error.code, "INVALID_MESSAGE");
    assert.match(answer?.body.error.message, /^Invalid body: malformed chunked encoding/);
    assert.deepEqual(logs, []);
    // A short extension is legal and ignored.
    const short = await exchange(
      port,
      `${head}1;ext=1\r\n{\r\n1\r\n}\r\n0\r\n\r\n`,
    );
    assert.equal(short.status, 400);
    assert.match(short.body.error.message, /^Invalid name/);
  } finally {
    await svc.stop();
  }
});

Deno.test("POST /api/v1/action with a name nested 100,000 deep: 400 INVALID_MESSAGE, no server error logged", async () => {
  const svc = await startTestService();
  try {
    const answers: Array<{ status: number; body: unknown }> = [];
    const logs = await errorLogsDuring(async () => {
      for (const value of [nested(100_000), nested(100_000, '{"a":', "}")]) {
        answers.push(await svc.post("/api/v1/action", `{"name":${value}}`));
      }
    });
    for (const answer of answers) {
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.body, {
        error: {
          code: "INVALID_MESSAGE",
          message: "Invalid body: JSON nested deeper than 64 levels",
          details: { field: "body", limit: 64 },
        },
      });
    }
    assert.deepEqual(logs, []);
  } finally {
    await svc.stop();
  }
});

Deno.test("every JSON route refuses a body nested deeper than 64 levels, and accepts 64", async () => {
  const svc = await startTestService();
  try {
    const deep = await svc.post(
      "/api/v1/edit",
      `{"name":"song.add","projectID":"show","params":{"title":${nested(64)}}}`,
    );
    assert.equal(deep.status, 400);
    assert.equal(deep.body.error.message, "Invalid body: JSON nested deeper than 64 levels");
    const pair = await svc.post("/api/v1/pair", `{"otp":${nested(80, '{"a":', "}")}}`);
    assert.equal(pair.body.error.message, "Invalid body: JSON nested deeper than 64 levels");
    // 64 levels in all (the body is one): judged on its merits.
    const fits = await svc.post("/api/v1/action", `{"name":${nested(63)}}`);
    assert.equal(fits.status, 400);
    assert.deepEqual(fits.body.error, {
      code: "INVALID_MESSAGE",
      message: "Invalid name: must be an action name such as PLAY_IN",
      details: { field: "name" },
    });
    // Brackets inside strings are text, not nesting.
    const text = await svc.post("/api/v1/action", { name: "[".repeat(500) + "{".repeat(500) });
    assert.equal(text.status, 400);
    assert.match(text.body.error.message, /^Invalid name: unknown action "\[\[\[/);
  } finally {
    await svc.stop();
  }
});

Deno.test("POST /api/v1/action echoes a bad value only when it is a plain value", async () => {
  const svc = await startTestService();
  try {
    const object = await svc.post("/api/v1/action", { name: "SEEK_CLIP_IN", params: ["c1", [1]] });
    assert.equal(object.status, 400);
    assert.deepEqual(object.body.error.details, { field: "params[1] (percent)" });
    const number = await svc.post("/api/v1/action", { name: "SEEK_CLIP_IN", params: ["c1", 1.5] });
    assert.deepEqual(number.body.error.details, { field: "params[1] (percent)", value: 1.5 });
  } finally {
    await svc.stop();
  }
});

Deno.test("errorAnswer() answers without details it cannot serialize, never with a 500", async () => {
  const app = new Hono();
  app.onError((error) => errorAnswer(error));
  app.get("/", () => {
    // JSON.stringify throws on a BigInt, as it did (RangeError) on a value nested 10,000 deep.
    throw new CueportError("INVALID_MESSAGE", "Invalid name: must be a string", { value: 1n });
  });
  const res = await app.request("/");
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), {
    error: { code: "INVALID_MESSAGE", message: "Invalid name: must be a string" },
  });
});
