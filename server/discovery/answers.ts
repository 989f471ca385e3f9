/**
 * The mDNS responder's answers to queries (`Responder` keeps its names and
 * links): which records answer (RFC 6762 s.6), known-answer suppression
 * (s.7.1), legacy unicast (s.6.7), QU answers within a per-source budget, and
 * multicast at most once a second per record and link (s.6.2), shared answers
 * a little later (s.6).
 * @module
 */
import packet from "dns-packet";
import { KeyedBuckets, MDNS_LIMITS } from "./budget.ts";
import { type Link, MDNS_PORT, type MdnsPacket, type Sender } from "./link.ts";
import { type MdnsRecord, sameData, sameName } from "./records.ts";

/** A message as `Link.send` takes it. */
export type Message = Parameters<Link["send"]>[0];

/** Legacy unicast answers carry TTLs of at most 10 s (RFC 6762 s.6.7). */
const LEGACY_TTL = 10;

/** A response carrying `answers` and `additionals`, authoritative. */
export function response(answers: MdnsRecord[], additionals: MdnsRecord[]): Message {
  return {
    type: "response",
    flags: packet.AUTHORITATIVE_ANSWER,
    questions: [],
    answers,
    authorities: [],
    additionals,
  };
}

/** Whether two records are one: the same name, type and data. */
export function sameRecord(a: MdnsRecord, b: MdnsRecord): boolean {
  return sameName(a.name, b.name) && a.type === b.type && sameData(a, b);
}

/** Answers the queries of the network from the records the responder holds. */
export class QueryAnswers {
  #unicastAnswers = new KeyedBuckets(
    MDNS_LIMITS.unicastAnswers.ratePerSecond,
    MDNS_LIMITS.unicastAnswers.burst,
  );
  /** When each record was last multicast on each link (`link id|record`), ms. */
  #multicastAt = new Map<string, number>();
  /** Sends a message on a link after `ms`, unless the responder stopped or the link closed. */
  #later: (link: Link, message: Message, ms: number) => void;

  /** `later` sends a shared answer once its delay has passed (the responder keeps the timers). */
  constructor(later: (link: Link, message: Message, ms: number) => void) {
    this.#later = later;
  }

  /** Answers `query` from `from` on `link` with the records of `all` it asks for. */
  answer(query: MdnsPacket, from: Sender, link: Link, all: MdnsRecord[]): void {
    const questions = query.questions ?? [];
    const legacy = from.port !== MDNS_PORT;
    const isProbe = (query.authorities ?? []).length > 0;
    const { answers, unicastOnly } = answersTo(questions, all);
    // Known-answer suppression (RFC 6762 s.7.1): the querier already holds these.
    const known = query.answers ?? [];
    const fresh = answers.filter((record) =>
      !known.some((k) => sameRecord(k, record) && k.ttl >= record.ttl / 2)
    );
    if (fresh.length === 0) return;
    const additionals = additionalsFor(fresh, all);
    const toSender = legacy || (unicastOnly && !isProbe);
    if (toSender && !this.#unicastAnswers.take(from.address, performance.now())) return;
    if (legacy) {
      // A legacy resolver (RFC 6762 s.6.7): same id, the questions repeated, short TTLs, no cache flush.
      const short = (r: MdnsRecord): MdnsRecord => ({
        ...r,
        ttl: Math.min(r.ttl, LEGACY_TTL),
        flush: false,
      });
      void link.send({
        ...response(fresh.map(short), additionals.map(short)),
        id: query.id,
        questions: questions.map((q) => ({ ...q, class: "IN" })),
      }, from);
      return;
    }
    if (unicastOnly && !isProbe) {
      void link.send(response(fresh, additionals), from);
      return;
    }
    this.#multicast(link, fresh, { all, isProbe });
  }

  /**
   * Sends `fresh` to the group: a record at most once a second per link, 250 ms
   * to defend a name (RFC 6762 s.6.2), so a query flood gets no more multicast
   * than a quiet network.
   */
  #multicast(link: Link, fresh: MdnsRecord[], options: { all: MdnsRecord[]; isProbe: boolean }) {
    const due = this.#multicastDue(link, fresh, options.isProbe);
    if (due.length === 0) return;
    const message = response(due, additionalsFor(due, options.all));
    // Shared answers wait 20-120 ms (RFC 6762 s.6); a defence of a unique name goes at once.
    const shared = due.some((r) => r.type === "PTR");
    if (!shared || options.isProbe) {
      void link.send(message);
      return;
    }
    this.#later(link, message, 20 + Math.random() * 100);
  }

  /** The records of `records` not multicast on `link` within the gap; marks them sent now. */
  #multicastDue(link: Link, records: MdnsRecord[], isProbe: boolean): MdnsRecord[] {
    const now = performance.now();
    const gap = isProbe ? MDNS_LIMITS.probeDefenceGapMs : MDNS_LIMITS.multicastGapMs;
    if (this.#multicastAt.size >= 4096) this.#multicastAt.clear();
    return records.filter((record) => {
      const key = `${link.iface.name}|${record.type}|${record.name}|${JSON.stringify(record.data)}`;
      const last = this.#multicastAt.get(key);
      if (last !== undefined && now - last < gap) return false;
      this.#multicastAt.set(key, now);
      return true;
    });
  }
}

/** Whether a decoded question class has the QU bit (dns-packet reports it as UNKNOWN_32769). */
function isQu(klass: string): boolean {
  const m = /^UNKNOWN_(\d+)$/.exec(klass);
  return m !== null && (Number(m[1]) & 0x8000) !== 0;
}

/** RFC 6763 s.12: a PTR brings its SRV, TXT and addresses; an SRV its addresses. */
function additionalsFor(answers: MdnsRecord[], all: MdnsRecord[]): MdnsRecord[] {
  const out: MdnsRecord[] = [];
  const add = (r: MdnsRecord) => {
    if (!answers.some((a) => sameRecord(a, r)) && !out.some((o) => sameRecord(o, r))) out.push(r);
  };
  for (const answer of answers) {
    if (answer.type === "PTR") {
      for (const r of all) {
        if (sameName(r.name, String(answer.data)) && (r.type === "SRV" || r.type === "TXT")) add(r);
      }
    }
  }
  for (const r of [...answers, ...out]) {
    if (r.type !== "SRV") continue;
    for (const a of all) {
      if ((a.type === "A" || a.type === "AAAA") && sameName(a.name, r.data.target)) add(a);
    }
  }
  return out;
}

/**
 * The records of `all` that answer `questions`, each once, and whether every
 * question asked for a unicast answer (QU).
 */
function answersTo(
  questions: NonNullable<MdnsPacket["questions"]>,
  all: readonly MdnsRecord[],
): { answers: MdnsRecord[]; unicastOnly: boolean } {
  const answers: MdnsRecord[] = [];
  let unicastOnly = true;
  for (const q of questions) {
    const wantsUnicast = isQu(q.class);
    if (!wantsUnicast) unicastOnly = false;
    for (const record of all) {
      if (!sameName(record.name, q.name)) continue;
      if (q.type !== "ANY" && q.type !== record.type) continue;
      if (!answers.some((a) => sameRecord(a, record))) answers.push(record);
    }
  }
  return { answers, unicastOnly };
}
