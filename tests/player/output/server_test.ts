/**
 * The output's own server: the editor's socket is refused unless an editor is
 * open, and both sockets only to a page of the server's own origin (Origin and
 * Host: another page of the browser, or a DNS-rebound name, is not the page) that
 * offers the secret of now as its subprotocol, which the answer names.
 */
import assert from "node:assert/strict";
import {
  type OutputServerHost,
  PAGE_SOCKET,
  pageSecretScript,
  serveOutput,
} from "../../../player/output/server.ts";
import { secretProtocols } from "../../../player/output/page/socket_secret.js";
import { PAGE_SECRET_PROTOCOL_PREFIX } from "../../../protocol/socket_bounds.ts";

/** Opens a socket to `url` with `headers`; resolves with its answer's head. */
async function answer(url: string, headers: Record<string, string>): Promise<string> {
  const target = new URL(url);
  const connection = await Deno.connect({ hostname: target.hostname, port: Number(target.port) });
  try {
    const request = [
      `GET ${target.pathname} HTTP/1.1`,
      `Host: ${headers.Host ?? target.host}`,
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      ...(headers.Origin ? [`Origin: ${headers.Origin}`] : []),
      ...(headers.Protocol ? [`Sec-WebSocket-Protocol: ${headers.Protocol}`] : []),
      "",
      "",
    ].join("\r\n");
    await connection.write(new TextEncoder().encode(request));
    const buffer = new Uint8Array(256);
    const read = await connection.read(buffer);
    return new TextDecoder().decode(buffer.subarray(0, read ?? 0));
  } finally {
    connection.close();
  }
}

/** Whether a socket to `url` with `headers` opens. */
async function opens(url: string, headers: Record<string, string>): Promise<boolean> {
  return (await answer(url, headers)).startsWith("HTTP/1.1 101");
}

/** A server with an editor open whose sockets close once open, with `host`'s other hooks. */
function serveClosing(host: Pick<OutputServerHost, "isTaken" | "refused">) {
  return serveOutput({
    media: () => null,
    connected: (socket) => socket.onopen = () => socket.close(),
    editorConnected: (socket) => socket.onopen = () => socket.close(),
    isEditorOpen: () => true,
    ...host,
  });
}

Deno.test("Output server: the editor's socket only while an editor is open, from its origin", async () => {
  let isOpen = false;
  const sockets: string[] = [];
  const server = serveOutput({
    media: () => null,
    connected: (socket) => {
      sockets.push("page");
      socket.onopen = () => socket.close();
    },
    editorConnected: (socket) => {
      sockets.push("editor");
      socket.onopen = () => socket.close();
    },
    isEditorOpen: () => isOpen,
  });
  const Protocol = `cueport.${server.rotateSecret()}`;
  try {
    const origin = new URL(server.url).origin;
    const editor = `${server.url}editor-ws`;
    assert.equal(await opens(editor, { Origin: origin, Protocol }), false, "no editor open");
    isOpen = true;
    assert.equal(await opens(editor, { Origin: origin, Protocol }), true, "an editor open");
    assert.equal(await opens(editor, { Protocol }), false, "no Origin");
    assert.equal(
      await opens(editor, { Origin: "http://127.0.0.1:1", Protocol }),
      false,
      "another origin",
    );
    assert.equal(
      await opens(editor, { Origin: origin, Host: "rebound.example:80", Protocol }),
      false,
      "another Host",
    );
    assert.equal(
      await opens(`${server.url}ws`, { Origin: "http://evil.example", Protocol }),
      false,
    );
    assert.equal(
      await opens(`${server.url}ws`, { Origin: origin, Protocol }),
      true,
      "the output page",
    );
    assert.deepEqual(sockets, ["editor", "page"]);
  } finally {
    await server.close();
  }
});

Deno.test("Output server: a socket opens only with the secret of now, named in the answer", async () => {
  const refusals: string[] = [];
  const server = serveClosing({ refused: (_kind, reason) => refusals.push(reason) });
  try {
    const Origin = new URL(server.url).origin;
    const first = server.rotateSecret();
    assert.match(first, /^[0-9a-f]{64}$/);
    for (const path of ["ws", "editor-ws"]) {
      const url = `${server.url}${path}`;
      assert.equal(await opens(url, { Origin }), false, "no secret");
      assert.equal(await opens(url, { Origin, Protocol: "cueport.guess" }), false, "a guess");
      const head = await answer(url, { Origin, Protocol: `chat, cueport.${first}` });
      assert.match(head, /^HTTP\/1\.1 101/);
      assert.match(head, new RegExp(`sec-websocket-protocol: cueport\\.${first}\r\n`, "i"));
    }
    const second = server.rotateSecret();
    assert.notEqual(second, first);
    const url = `${server.url}ws`;
    assert.equal(await opens(url, { Origin, Protocol: `cueport.${first}` }), false, "the old one");
    assert.equal(await opens(url, { Origin, Protocol: `cueport.${second}` }), true);
    assert.equal(refusals.length, 5);
    assert.match(refusals[0]!, /^the ws socket refused: no secret/);
  } finally {
    await server.close();
  }
});

Deno.test("Output server: a second page is refused at the upgrade, 403 with why, counted as a second page", async () => {
  const taken = new Set<string>();
  const refusals: string[] = [];
  const server = serveClosing({
    isTaken: (path) => taken.has(path),
    refused: (kind, reason) => refusals.push(`${kind}: ${reason}`),
  });
  try {
    const Origin = new URL(server.url).origin;
    const Protocol = `cueport.${server.rotateSecret()}`;
    taken.add("ws");
    assert.match(await answer(`${server.url}ws`, { Origin, Protocol }), /^HTTP\/1\.1 403/);
    assert.equal(await opens(`${server.url}editor-ws`, { Origin, Protocol }), true, "not taken");
    taken.add("editor-ws");
    const head = await answer(`${server.url}editor-ws`, { Origin, Protocol });
    assert.match(head, /^HTTP\/1\.1 403/);
    assert.match(head, /Forbidden: another page has it/);
    assert.deepEqual(refusals, [
      "second page: the ws socket refused: another page has it",
      "second page: the editor-ws socket refused: another page has it",
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("Output server: the root is a black page (the window's first), naming nothing", async () => {
  const server = serveOutput({
    media: () => null,
    connected: () => {},
    editorConnected: () => {},
    isEditorOpen: () => false,
  });
  try {
    const root = new URL(server.url).origin + "/";
    const response = await fetch(root);
    const body = await response.text();
    assert.equal(response.status, 200);
    assert.match(body, /background:#000/);
    assert(!body.includes(new URL(server.url).pathname.slice(1, -1)), "no secret path");
    const other = await fetch(new URL(server.url).origin + "/elsewhere");
    assert.equal(other.status, 404);
    await other.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("Output server: the page's start script gives it the secret and the prefix it offers them with", () => {
  const page = globalThis as Record<string, unknown>;
  try {
    assert.deepEqual(secretProtocols(), [], "no secret given: none offered");
    new Function(pageSecretScript("ab12"))();
    assert.deepEqual(secretProtocols(), [`${PAGE_SECRET_PROTOCOL_PREFIX}ab12`]);
  } finally {
    delete page.cueportPageSecret;
    delete page.cueportPageSecretPrefix;
  }
});

Deno.test("Output server: the pages' sockets have no ping deadline of Deno's own; PageHealth judges silence", async () => {
  // Deno closes a socket whose peer answers no ping within `idleTimeout` s (30 by default), and
  // the page reloads at once: seen by its timing alone, a wait this suite does not make. So the
  // options each upgrade is given are read where the server gives them.
  const upgrade = Deno.upgradeWebSocket;
  const given: Record<string, unknown>[] = [];
  Deno.upgradeWebSocket = (request, options) => {
    given.push({ ...options });
    return upgrade(request, options);
  };
  const server = serveClosing({});
  try {
    const Origin = new URL(server.url).origin;
    const Protocol = `cueport.${server.rotateSecret()}`;
    for (const path of ["ws", "editor-ws"]) {
      assert.equal(await opens(`${server.url}${path}`, { Origin, Protocol }), true, path);
    }
    assert.equal(given.length, 2);
    for (const options of given) assert.equal(options.idleTimeout, 0);
    assert.deepEqual(PAGE_SOCKET, { idleTimeout: 0 });
  } finally {
    Deno.upgradeWebSocket = upgrade;
    await server.close();
  }
});
