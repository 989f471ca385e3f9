/**
 * The hosts Cueport invites (the `invite` option, `invite(host, port)`):
 * each is invited on its control port, then on its data port, and invited
 * again with backoff (1 s, 2 s, 4 s... up to a maximum) until it answers. A
 * host stays a target for the session's life: when it leaves (it says `BY`,
 * or stops answering clock sync, or restarts), it is invited again, so a
 * session survives the host's restart. Only a refusal (`NO`) ends it.
 * @module
 */

/** The backoff of invitations to a host that does not answer. */
export interface Backoff {
  /** The wait after the first unanswered invitation (default 1,000 ms). */
  firstMs?: number;
  /** The longest wait (default 30,000 ms). */
  maxMs?: number;
}

/** One invited host. */
export interface Invitation {
  host: string;
  /** Its control port. */
  port: number;
  /** The token of the current attempt. */
  token: number;
  /** `control`/`data`: inviting that port; `joined`: in session; `declined`: it said NO. */
  stage: "control" | "data" | "joined" | "declined";
  /** Its SSRC and name, from its answer on the control port. */
  ssrc: number;
  name: string;
  attempts: number;
  nextAt: number;
}

const randomToken = () => crypto.getRandomValues(new Uint32Array(1))[0]!;

/** The invited hosts and when each is next invited. */
export class Invitations {
  #list: Invitation[] = [];
  #firstMs: number;
  #maxMs: number;

  /** Builds an empty list with `backoff`. */
  constructor(backoff: Backoff = {}) {
    this.#firstMs = backoff.firstMs ?? 1000;
    this.#maxMs = backoff.maxMs ?? 30_000;
  }

  /** Adds `host:port` (or restarts it when listed), to invite at `now`. */
  add(host: string, port: number, now: number): Invitation {
    let found = this.#list.find((i) => i.host === host && i.port === port);
    if (!found) {
      found = { host, port, token: 0, stage: "control", ssrc: 0, name: "", attempts: 0, nextAt: 0 };
      this.#list.push(found);
    }
    this.restart(found, now);
    return found;
  }

  /** Invites it again from its control port, at `now`, with a new token. */
  restart(invitation: Invitation, now: number): void {
    Object.assign(invitation, { token: randomToken(), stage: "control", attempts: 0, nextAt: now });
  }

  /** The invitation of `token` answered from `host`, if any. */
  byToken(token: number, host: string): Invitation | undefined {
    return this.#list.find((i) => i.token === token && i.host === host);
  }

  /** The invitation of the host at `host:port` (its control port), if any. */
  at(host: string, port: number): Invitation | undefined {
    return this.#list.find((i) => i.host === host && i.port === port);
  }

  /** The invitations to send at `now`; each is scheduled again after its backoff. */
  due(now: number): Invitation[] {
    const out: Invitation[] = [];
    for (const i of this.#list) {
      if ((i.stage !== "control" && i.stage !== "data") || i.nextAt > now) continue;
      out.push(i);
      i.nextAt = now + Math.min(this.#maxMs, this.#firstMs * 2 ** Math.min(i.attempts, 16));
      i.attempts++;
    }
    return out;
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
