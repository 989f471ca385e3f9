// The pages' socket secret: the player gives its browser's pages a secret at each browser start
// (`globalThis.cueportPageSecret`, set before any page script runs); a page offers it as its
// WebSocket subprotocol, without which its socket is refused (protocol/socket_bounds.ts).

/** The subprotocols to offer: `cueport.<secret>`, read at each connection (a new one may come). */
export function secretProtocols() {
  const secret = globalThis.cueportPageSecret;
  return typeof secret === "string" ? [`cueport.${secret}`] : [];
}
