/**
 * The output's own server: the editor's socket is refused unless an editor is
 * open, and both sockets only to a page of the server's own origin (Origin and
 * Host: another page of the browser, or a DNS-rebound name, is not the page).
 */
import assert from "node:assert/strict";
import { serveOutput } from "../../../player/output/server.ts";

/** Opens a socket to `url` with `headers`; resolves with whether it opened. */
async function opens(url: string, headers: Record<string, string>): Promise<boolean> {
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
      "",
      "",
    ].join("\r\n");
    await connection.write(new TextEncoder().encode(request));
    const buffer = new Uint8Array(256);
    const read = await connection.read(buffer);
    return new TextDecoder().decode(buffer.subarray(0, read ?? 0)).startsWith("HTTP/1.1 101");
  } finally {
    connection.close();
  }
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
  try {
    const origin = new URL(server.url).origin;
    const editor = `${server.url}editor-ws`;
    assert.equal(await opens(editor, { Origin: origin }), false, "no editor open");
    isOpen = true;
    assert.equal(await opens(editor, { Origin: origin }), true, "an editor open");
    assert.equal(await opens(editor, {}), false, "no Origin");
    assert.equal(await opens(editor, { Origin: "http://127.0.0.1:1" }), false, "another origin");
    assert.equal(
      await opens(editor, { Origin: origin, Host: "rebound.example:80" }),
      false,
      "another Host",
    );
    assert.equal(await opens(`${server.url}ws`, { Origin: "http://evil.example" }), false);
    assert.equal(await opens(`${server.url}ws`, { Origin: origin }), true, "the output page");
    assert.deepEqual(sockets, ["editor", "page"]);
  } finally {
    await server.close();
  }
});
