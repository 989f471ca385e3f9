/**
 * The mDNS responder (RFC 6762) that `multicast-dns` lacks: probing before
 * announcing, renaming on a conflict (`Cueport - show (2)`), announcements,
 * answers to multicast, QU and legacy unicast queries, goodbyes on stop, and
 * interfaces followed as they come and go.
 * @module
 */
import packet from "dns-packet";
import {
  type AdvertInterface,
  inSubnet,
  type InterfaceLister,
  interfacesKey,
} from "./interfaces.ts";
import { IngressBudget, KeyedBuckets, MDNS_LIMITS } from "./budget.ts";
import { Link, MDNS_PORT, type MdnsPacket, type Sender } from "./link.ts";
import {
  compareBytes,
  fqdnOf,
  hostRecords,
  instanceRecords,
  labelOf,
  type MdnsRecord,
  rdataOf,
  sameData,
  sameName,
  type ServiceInstance,
  type ServiceSet,
} from "./records.ts";

/** Protocol timings (RFC 6762 s.8); tests may shorten none of them but the interface poll. */
export interface ResponderTimings {
  /** Between probes (250 ms). */
  probeMs: number;
  /** The first announcement follows the last probe; then the gaps double from this (1 s). */
  announceMs: number;
  /** Announcements sent (3: at 0, 1 and 3 s). */
  announcements: number;
  /** How often the interface list is read again (5 s). */
  interfacePollMs: number;
}

/** The RFC's timings. */
export const RFC_TIMINGS: ResponderTimings = {
  probeMs: 250,
  announceMs: 1000,
  announcements: 3,
  interfacePollMs: 5000,
};

/** One instance as it is advertised now. */
interface Advert {
  instance: ServiceInstance;
  /** 1 for the bare name; 2 for `(2)`... */
  attempt: number;
  label: string;
  state: "probing" | "announced";
  /** Bumped on every restart of its probing, so an older loop stops. */
  generation: number;
}

/** What the responder tells the log. */
export type ResponderLog = (level: "debug" | "info" | "warn", message: string) => void;

/** Legacy unicast answers carry TTLs of at most 10 s (RFC 6762 s.6.7). */
const LEGACY_TTL = 10;
/** Copies of one packet (one per socket of port 5353) arrive within this, ms. */
const DUPLICATE_MS = 50;
/** Give up renaming after this many conflicts in a row. */
const MAX_ATTEMPTS = 100;

/** Advertises one service set until stopped. */
export class Responder {
  #links = new Map<string, Link>();
  #budget = new IngressBudget();
  #unicastAnswers = new KeyedBuckets(
    MDNS_LIMITS.unicastAnswers.ratePerSecond,
    MDNS_LIMITS.unicastAnswers.burst,
  );
  /** When each record was last multicast on each link (`link id|record`), ms. */
  #multicastAt = new Map<string, number>();
  /** Packets just handled (a multicast one reaches every link's socket), with when. */
  #seen = new Map<string, number>();
  #adverts: Advert[];
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #stopped = false;
  #interfacesKey = "";
  #poll: ReturnType<typeof setInterval> | undefined;

  private constructor(
    private set: ServiceSet,
    instances: ServiceInstance[],
    private listInterfaces: InterfaceLister,
    private log: ResponderLog,
    private timings: ResponderTimings,
  ) {
    this.#adverts = instances.map((instance) => ({
      instance,
      attempt: 1,
      label: labelOf(instance.baseName, 1),
      state: "probing",
      generation: 0,
    }));
  }

  /** Opens a socket per interface and starts probing; resolves once the sockets are open. */
  static async start(options: {
    set: ServiceSet;
    instances: ServiceInstance[];
    interfaces: InterfaceLister;
    log: ResponderLog;
    timings?: Partial<ResponderTimings>;
  }): Promise<Responder> {
    const responder = new Responder(
      options.set,
      options.instances,
      options.interfaces,
      options.log,
      { ...RFC_TIMINGS, ...options.timings },
    );
    await responder.refreshInterfaces();
    for (const advert of responder.#adverts) void responder.#probe(advert);
    responder.#poll = setInterval(
      () => void responder.refreshInterfaces(),
      responder.timings.interfacePollMs,
    );
    return responder;
  }

  /** The instance names now in use, by service type (`_app._tcp` -> `Cueport - show (2)`). */
  get names(): Record<string, string> {
    return Object.fromEntries(this.#adverts.map((a) => [a.instance.type, a.label]));
  }

  /** Whether every instance has won its name and been announced. */
  get announced(): boolean {
    return this.#adverts.every((a) => a.state === "announced");
  }

  /** The interfaces served now. */
  get interfaces(): AdvertInterface[] {
    return [...this.#links.values()].map((l) => l.iface);
  }

  /** Reads the interface list again: opens sockets on new interfaces, closes those of gone ones. */
  async refreshInterfaces(): Promise<void> {
    if (this.#stopped) return;
    let list: AdvertInterface[];
    try {
      list = this.listInterfaces();
    } catch (error) {
      this.log("warn", `mDNS: cannot list the network interfaces: ${(error as Error).message}`);
      return;
    }
    const key = interfacesKey(list);
    if (key === this.#interfacesKey) return;
    this.#interfacesKey = key;
    const wanted = new Map(list.map((i) => [`${i.name} ${interfacesKey([i])}`, i]));
    for (const [id, link] of this.#links) {
      if (wanted.has(id)) continue;
      this.#links.delete(id);
      this.log("info", `mDNS: interface ${link.iface.name} (${link.iface.address}) is gone`);
      await link.close();
    }
    for (const [id, iface] of wanted) {
      if (this.#links.has(id) || this.#stopped) continue;
      try {
        const link = await Link.open(iface, this.#budget);
        if (this.#stopped) {
          await link.close();
          return;
        }
        link.onpacket = (p, from, l, isLocal) => this.#route(p, from, l, isLocal);
        this.#links.set(id, link);
        this.log("debug", `mDNS: advertising on ${iface.name} (${iface.addresses.join(", ")})`);
        // Names already won are announced on the new interface at once.
        const won = this.#adverts.filter((a) => a.state === "announced");
        if (won.length > 0) void this.#announce(won, [link]);
      } catch (error) {
        this.log("warn", cannotOpen(iface, error as Error & { code?: string }));
      }
    }
  }

  /** Sends goodbyes (TTL 0) for every announced record and closes the sockets. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#poll);
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    const links = [...this.#links.values()];
    const gone = this.#adverts.filter((a) => a.state === "announced");
    if (gone.length > 0) {
      await Promise.all(links.map((link) => link.send(goodbye(this.#serviceRecords(gone)))));
    }
    await Promise.all(links.map((link) => link.close()));
    this.#links.clear();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve();
      }, ms);
      this.#timers.add(timer);
    });
  }

  /** Whether a probing or announcing loop of `advert` begun at `generation` is still current. */
  #current(advert: Advert, generation: number): boolean {
    return !this.#stopped && advert.generation === generation;
  }

  /** Probes `advert`'s name three times 250 ms apart (RFC 6762 s.8.1), then announces it. */
  async #probe(advert: Advert, delayMs = Math.random() * this.timings.probeMs): Promise<void> {
    const generation = ++advert.generation;
    advert.state = "probing";
    await this.#sleep(delayMs);
    for (let i = 0; i < 3; i++) {
      if (!this.#current(advert, generation)) return;
      const { unique } = this.#records(advert);
      const probe = {
        type: "query" as const,
        // Multicast (QM) probes: on a host where several responders share port 5353, a unicast
        // answer reaches only one of them (docs/discovery.md).
        questions: [{ name: unique[0]!.name, type: "ANY", class: "IN" }],
        answers: [],
        authorities: unique,
        additionals: [],
      };
      await Promise.all(this.#linkList().map((link) => link.send(probe)));
      await this.#sleep(this.timings.probeMs);
    }
    if (!this.#current(advert, generation)) return;
    advert.state = "announced";
    if (advert.attempt > 1) {
      this.log(
        "info",
        `mDNS: "${advert.instance.baseName}" is taken on the network; advertised as "${advert.label}"`,
      );
    }
    this.log("debug", `mDNS: advertising ${fqdnOf(advert.label, advert.instance.type)}`);
    await this.#announce([advert], this.#linkList(), generation);
  }

  /** Sends unsolicited responses, `announcements` times with doubling gaps (RFC 6762 s.8.3). */
  async #announce(adverts: Advert[], links: Link[], generation?: number): Promise<void> {
    let gap = this.timings.announceMs;
    for (let i = 0; i < this.timings.announcements; i++) {
      if (this.#stopped) return;
      if (generation !== undefined && !this.#current(adverts[0]!, generation)) return;
      await Promise.all(links.map((link) => {
        if (!this.#isOpen(link)) return;
        const answers = [
          ...this.#serviceRecords(adverts),
          ...hostRecords(
            this.set.hostname,
            link.iface.addresses,
          ),
        ];
        return link.send(response(answers, []));
      }));
      if (i + 1 < this.timings.announcements) await this.#sleep(gap);
      gap *= 2;
    }
  }

  #isOpen(link: Link): boolean {
    return [...this.#links.values()].includes(link);
  }

  #linkList(): Link[] {
    return [...this.#links.values()];
  }

  #records(advert: Advert): { shared: MdnsRecord[]; unique: MdnsRecord[] } {
    return instanceRecords(advert.label, advert.instance, this.set);
  }

  /** The PTR, SRV and TXT records of `adverts` (shared PTRs once). */
  #serviceRecords(adverts: Advert[]): MdnsRecord[] {
    const out: MdnsRecord[] = [];
    for (const advert of adverts) {
      const { shared, unique } = this.#records(advert);
      for (const record of [...shared, ...unique]) {
        if (!out.some((r) => sameRecord(r, record))) out.push(record);
      }
    }
    return out;
  }

  /** Packets decoded and refused before decoding since the start (a flood shows here). */
  get dropped(): number {
    return this.#budget.dropped;
  }

  /**
   * Hands a packet to the link of its source's subnet, once: a unicast query to port 5353
   * reaches one socket whatever its source (RFC 6762 s.5.5), a multicast one every socket.
   * A source in no link's subnet is not answered.
   */
  #route(message: MdnsPacket, from: Sender, received: Link, isLocal: boolean): void {
    const link = isLocal ? received : this.#linkList().find((l) => inSubnet(from.address, l.iface));
    if (!link) return;
    if (this.#links.size > 1 && this.#isCopy(message, from, link)) return;
    this.#onPacket(message, from, link);
  }

  /**
   * Whether the packet was just handled on `link`: the copies of one multicast packet arrive
   * together, one per socket; a repeat (a probe, 250 ms later) is a packet of its own.
   */
  #isCopy(message: MdnsPacket, from: Sender, link: Link): boolean {
    const now = performance.now();
    const key = `${link.iface.name}|${from.address}|${from.port}|${JSON.stringify(message)}`;
    const before = this.#seen.get(key);
    if (before !== undefined && now - before < DUPLICATE_MS) return true;
    if (this.#seen.size >= 256) {
      for (const [k, at] of this.#seen) if (now - at >= DUPLICATE_MS) this.#seen.delete(k);
      if (this.#seen.size >= 256) this.#seen.clear();
    }
    this.#seen.set(key, now);
    return false;
  }

  #onPacket(message: MdnsPacket, from: Sender, link: Link): void {
    if (this.#stopped) return;
    if (message.type === "response") this.#checkConflicts(message);
    else this.#answer(message, from, link);
  }

  /** A response holding a unique record of one of our names with other data is a conflict. */
  #checkConflicts(message: MdnsPacket): void {
    const records = [...(message.answers ?? []), ...(message.additionals ?? [])];
    for (const advert of this.#adverts) {
      const { unique } = this.#records(advert);
      const clash = records.some((theirs) =>
        theirs.ttl > 0 &&
        unique.some((ours) =>
          sameName(theirs.name, ours.name) && theirs.type === ours.type && !sameData(theirs, ours)
        )
      );
      if (clash) this.#rename(advert);
    }
  }

  #rename(advert: Advert): void {
    if (advert.attempt >= MAX_ATTEMPTS) {
      this.log("warn", `mDNS: no free name for "${advert.instance.baseName}"; not advertising it`);
      advert.generation++;
      return;
    }
    const wasAnnounced = advert.state === "announced";
    const old = advert.label;
    if (wasAnnounced) {
      // Our old records are withdrawn before the new name is probed.
      const records = this.#records(advert);
      const bye = goodbye([records.shared[0]!, ...records.unique]);
      for (const link of this.#linkList()) void link.send(bye);
    }
    advert.attempt++;
    advert.label = labelOf(advert.instance.baseName, advert.attempt);
    this.log("info", `mDNS: name conflict for "${old}"; probing "${advert.label}"`);
    void this.#probe(advert);
  }

  /** Answers a query (or, while probing, takes part in a probe tie-break, RFC 6762 s.8.2). */
  #answer(query: MdnsPacket, from: Sender, link: Link): void {
    const questions = query.questions ?? [];
    if (questions.length === 0) return;
    this.#tieBreak(query);
    const legacy = from.port !== MDNS_PORT;
    const isProbe = (query.authorities ?? []).length > 0;
    const announced = this.#adverts.filter((a) => a.state === "announced");
    if (announced.length === 0) return;
    const hosts = hostRecords(this.set.hostname, link.iface.addresses);
    const all = [...this.#serviceRecords(announced), ...hosts];
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
    // A record goes to the group at most once a second per link, 250 ms to defend a name
    // (RFC 6762 s.6.2): a query flood gets no more multicast than a quiet network.
    const due = this.#multicastDue(link, fresh, isProbe);
    if (due.length === 0) return;
    const message = response(due, additionalsFor(due, all));
    // Shared answers wait 20-120 ms (RFC 6762 s.6); a defence of a unique name goes at once.
    const shared = due.some((r) => r.type === "PTR");
    if (!shared || isProbe) {
      void link.send(message);
      return;
    }
    void this.#sleep(20 + Math.random() * 100).then(() => {
      if (!this.#stopped && this.#isOpen(link)) void link.send(message);
    });
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

  /** A probe for a name we are probing too: the lexicographically later data wins (s.8.2). */
  #tieBreak(query: MdnsPacket): void {
    const theirs = query.authorities ?? [];
    if (theirs.length === 0) return;
    for (const advert of this.#adverts) {
      if (advert.state !== "probing") continue;
      const { unique } = this.#records(advert);
      const name = unique[0]!.name;
      const them = theirs.filter((r) => sameName(r.name, name));
      if (them.length === 0) continue;
      const order = compareRecordSets(unique, them);
      if (order < 0) {
        // We lose: wait a second and probe again; the winner will defend its name (RFC 6762 s.8.2).
        this.log("debug", `mDNS: lost a simultaneous probe for "${advert.label}"`);
        void this.#probe(advert, 1000);
      }
    }
  }
}

/** Whether a decoded question class has the QU bit (dns-packet reports it as UNKNOWN_32769). */
function isQu(klass: string): boolean {
  const m = /^UNKNOWN_(\d+)$/.exec(klass);
  return m !== null && (Number(m[1]) & 0x8000) !== 0;
}

function response(answers: MdnsRecord[], additionals: MdnsRecord[]) {
  return {
    type: "response" as const,
    flags: packet.AUTHORITATIVE_ANSWER,
    questions: [],
    answers,
    authorities: [],
    additionals,
  };
}

function goodbye(records: MdnsRecord[]) {
  return response(records.map((r) => ({ ...r, ttl: 0 })), []);
}

function sameRecord(a: MdnsRecord, b: MdnsRecord): boolean {
  return sameName(a.name, b.name) && a.type === b.type && sameData(a, b);
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

/** RFC 6762 s.8.2: records sorted by class, type and data, then compared one by one. */
function compareRecordSets(ours: MdnsRecord[], theirs: MdnsRecord[]): number {
  const sorted = (list: MdnsRecord[]) =>
    list
      .map((r) => ({ type: packet.record ? typeCode(r.type) : 0, data: rdataOf(r) }))
      .sort((a, b) => a.type - b.type || compareBytes(a.data, b.data));
  const a = sorted(ours), b = sorted(theirs);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = a[i]!.type - b[i]!.type || compareBytes(a[i]!.data, b[i]!.data);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

function typeCode(type: string): number {
  return ({ A: 1, PTR: 12, TXT: 16, AAAA: 28, SRV: 33 } as Record<string, number>)[type] ?? 0;
}

function cannotOpen(iface: AdvertInterface, error: Error & { code?: string }): string {
  const where = `${iface.name} (${iface.address})`;
  if (error.code === "EADDRINUSE" || error instanceof Deno.errors.AddrInUse) {
    return `mDNS: not advertising on ${where}: UDP port 5353 is held by another responder that ` +
      `does not share it (no SO_REUSEADDR). Let that responder (Avahi, Bonjour) share the port, ` +
      `or turn discovery off with --mdns off`;
  }
  if (error.code === "EACCES" || error instanceof Deno.errors.PermissionDenied) {
    return `mDNS: not advertising on ${where}: binding UDP port 5353 needs privileges this ` +
      `process does not have`;
  }
  return `mDNS: not advertising on ${where}: ${error.message}`;
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
