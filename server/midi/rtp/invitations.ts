/**
 * The hosts Cueport invites (the `invite` option, `invite(host, port)`):
 * each is invited on its control port, then on its data port, and invited
 * again with backoff (1 s, 2 s, 4 s... up to a maximum) until it answers. A
 * host given by name is resolved to its address first (again at each
 * restart), and its answers are matched by token and that address. A host
 * stays a target for the session's life: when it leaves (it says `BY`, or
 * stops answering clock sync, or restarts), it is invited again, so a
 * session survives the host's restart. A refusal (`NO`) does not end it
 * either: a `NO` on the data port starts over from the control port after a
 * backoff, a `NO` on the control port is tried again after the longest one.
 * @module
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { normalizeAddress } from "../../net/address.ts";

/** The backoff of invitations to a host that does not answer. */
export interface Backoff {
  /** The wait after the first unanswered invitation (default 1,000 ms). */
  firstMs?: number;
  /** The longest wait (default 30,000 ms). */
  maxMs?: number;
}

/** One invited host. */
export interface Invitation {
  /** As given: an address or a name. */
  host: string;
  /** The address it resolved to (normalised), null until it did. */
  address: string | null;
  /** Its control port. */
  port: number;
  /** The token of the current attempt. */
  token: number;
  /** `control`/`data`: inviting that port; `joined`: in session. */
  stage: "control" | "data" | "joined";
  /** Its SSRC and name, from its answer on the control port. */
  ssrc: number;
  name: string;
  attempts: number;
  /** `NO`s since it last joined: each one waits longer. */
  refusals: number;
  nextAt: number;
}

/** Resolves a host name to one address. */
export type Resolver = (host: string) => Promise<string>;

/** `host`'s address, normalised; an IPv4 one first (`localhost` is 127.0.0.1). */
export async function resolveHost(host: string): Promise<string> {
  const found = await lookup(host, { all: true });
  const chosen = found.find((a) => a.family === 4) ?? found[0];
  if (!chosen) throw new Error(`${host} has no address`);
  return normalizeAddress(chosen.address);
}

/** `host` as an address when it is one (`[::1]` too), else null. */
function literal(host: string): string | null {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return isIP(bare) ? normalizeAddress(bare) : null;
}

const randomToken = () => crypto.getRandomValues(new Uint32Array(1))[0]!;

/** The invited hosts and when each is next invited. */
export class Invitations {
  #list: Invitation[] = [];
  #firstMs: number;
  #maxMs: number;
  #resolve: Resolver;
  #resolving = new WeakSet<Invitation>();
  /** Called when a host's name resolved: its invitation is due. */
  onResolved: () => void = () => {};

  /** Builds an empty list with `backoff`; names resolve with `options.resolve` (default DNS and hosts file). */
  constructor(backoff: Backoff = {}, options: { resolve?: Resolver } = {}) {
    this.#firstMs = backoff.firstMs ?? 1000;
    this.#maxMs = backoff.maxMs ?? 30_000;
    this.#resolve = options.resolve ?? resolveHost;
  }

  /** Adds `host:port` (or restarts it when listed), to invite at `options.now`. */
  add(host: string, port: number, options: { now: number }): Invitation {
    let found = this.#list.find((i) => i.host === host && i.port === port);
    if (!found) {
      found = {
        host,
        address: null,
        port,
        token: 0,
        stage: "control",
        ssrc: 0,
        name: "",
        attempts: 0,
        refusals: 0,
        nextAt: 0,
      };
      this.#list.push(found);
    }
    this.restart(found, options.now);
    return found;
  }

  /** Invites it again from its control port, at `now`, with a new token (a name is resolved anew). */
  restart(invitation: Invitation, now: number): void {
    const address = literal(invitation.host);
    Object.assign(invitation, {
      address,
      token: randomToken(),
      stage: "control",
      attempts: 0,
      nextAt: now,
    });
  }

  /** It said `NO` at `now`: invited again from its control port, later each time. */
  refused(invitation: Invitation, now: number): void {
    invitation.refusals++;
    const waitMs = invitation.stage === "data"
      ? this.#backoff(invitation.refusals - 1)
      : this.#maxMs;
    Object.assign(invitation, {
      token: randomToken(),
      stage: "control",
      attempts: 0,
      nextAt: now + waitMs,
    });
  }

  /** Both its ports answered: it is in session. */
  joined(invitation: Invitation): void {
    Object.assign(invitation, { stage: "joined", refusals: 0 });
  }

  /** The invitation of `token` answered from `address`, if any. */
  byToken(token: number, address: string): Invitation | undefined {
    return this.#list.find((i) => i.token === token && i.address === address);
  }

  /** The invitation of the host at `address:port` (its control port), if any. */
  at(address: string, port: number): Invitation | undefined {
    return this.#list.find((i) => i.address === address && i.port === port);
  }

  /** The invitations to send at `now` (a name not resolved yet is resolved first); each is scheduled again after its backoff. */
  due(now: number): Invitation[] {
    const out: Invitation[] = [];
    for (const i of this.#list) {
      if ((i.stage !== "control" && i.stage !== "data") || i.nextAt > now) continue;
      if (i.address === null && this.#resolving.has(i)) continue;
      if (i.address === null) this.#lookUp(i);
      else out.push(i);
      i.nextAt = now + this.#backoff(i.attempts);
      i.attempts++;
    }
    return out;
  }

  #backoff(attempts: number): number {
    return Math.min(this.#maxMs, this.#firstMs * 2 ** Math.min(attempts, 16));
  }

  #lookUp(invitation: Invitation): void {
    const token = invitation.token;
    this.#resolving.add(invitation);
    this.#resolve(invitation.host).then((address) => {
      if (invitation.token !== token) return; // restarted meanwhile: resolved again
      invitation.address = address;
      invitation.nextAt = 0;
      this.onResolved();
    }, () => {}).finally(() => this.#resolving.delete(invitation));
  }

  /** The control port answered: the data port is invited next, at `now`. */
  accepted(invitation: Invitation, ssrc: number, name: string, now: number): void {
    Object.assign(invitation, { stage: "data", ssrc, name, attempts: 0, nextAt: now });
  }

  /** Every invitation. */
  all(): readonly Invitation[] {
    return this.#list;
  }
}
