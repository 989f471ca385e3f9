// @ts-check
// The pages' socket secret: the player gives its browser's pages a secret at each browser start
// (`globalThis.cueportPageSecret`, set before any page script runs, with the subprotocol's
// prefix, `globalThis.cueportPageSecretPrefix`: protocol/socket_bounds.ts); a page offers it as
// its WebSocket subprotocol, without which its socket is refused.

/** The subprotocols to offer: `<prefix><secret>`, read at each connection (a new one may come). */
export function secretProtocols() {
  const given = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (globalThis));
  const { cueportPageSecret: secret, cueportPageSecretPrefix: prefix } = given;
  return typeof secret === "string" && typeof prefix === "string" ? [prefix + secret] : [];
}
