/**
 * A plain WebSocket client (Deno) of the output's sockets, as a local program would open one:
 * with the server's Origin, with or without a secret, and what became of it.
 */

/** A client socket: whether it opened, its messages, and its close once it comes. */
export interface Client {
  socket: WebSocket;
  isOpen: boolean;
  received: unknown[];
  closed: Promise<{ code: number; reason: string }>;
}

/**
 * Opens a socket to `url` with Origin `origin` offering `cueport.<secret>` (none without one);
 * resolves once it opened or closed.
 */
export async function openClient(
  url: string,
  options: { origin: string; secret?: string | undefined },
): Promise<Client> {
  const protocols = options.secret === undefined ? [] : [`cueport.${options.secret}`];
  const socket = new WebSocket(url.replace(/^http/, "ws"), {
    protocols,
    headers: { origin: options.origin },
  } as unknown as string[]);
  socket.binaryType = "arraybuffer";
  const received: unknown[] = [];
  socket.onmessage = (event) => received.push(JSON.parse(String(event.data)));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.addEventListener(
      "close",
      (event) => resolve({ code: event.code, reason: event.reason }),
    );
  });
  socket.onerror = () => {};
  const isOpen = await Promise.race([
    new Promise<boolean>((resolve) => socket.addEventListener("open", () => resolve(true))),
    closed.then(() => false),
  ]);
  return { socket, isOpen, received, closed };
}
