/**
 * The mDNS responder (RFC 6762) that `multicast-dns` lacks: probing before
 * announcing, renaming on a conflict (`Cueport - show (2)`), announcements,
 * answers to multicast, QU and legacy unicast queries, goodbyes on stop, and
 * interfaces followed as they come and go. Its parts: `answers.ts` (the
 * answers to queries), `links.ts` (a socket per interface, as they come and
 * go; `copies.ts`, one packet seen on every socket), `records.ts` (what is
 * advertised).
 * @module
 */
import packet from "dns-packet";
import type { AdvertInterface, InterfaceLister } from "./interfaces.ts";
import { type Link, type MdnsPacket, type Sender } from "./link.ts";
import { QueryAnswers, response, sameRecord } from "./answers.ts";
import { Links, type ResponderLog } from "./links.ts";
import { MDNS_LIMITS } from "./budget.ts";
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

export type { ResponderLog } from "./links.ts";

/** Give up renaming after this many conflicts in a row. */
const MAX_ATTEMPTS = 100;

/** Advertises one service set until stopped. */
export class Responder {
  #links: Links;
  #answers = new QueryAnswers((link, message, ms) => {
    void this.#sleep(ms).then(() => {
      if (!this.#stopped && this.#links.isOpen(link)) void link.send(message);
    });
  });
  #adverts: Advert[];
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #stopped = false;
  #poll: ReturnType<typeof setInterval> | undefined;
  /** The last TXT change announced (`setTxt`), and a count that lets only the newest go out. */
  #txtAt = -Infinity;
  #txtGeneration = 0;

  private constructor(
    private set: ServiceSet,
    instances: ServiceInstance[],
    listInterfaces: InterfaceLister,
    private log: ResponderLog,
    private timings: ResponderTimings,
  ) {
    this.#links = new Links({
      listInterfaces,
      log,
      onPacket: (message, from, link) => this.#onPacket(message, from, link),
      onOpen: (link) => {
        // Names already won are announced on the new interface at once.
        const won = this.#adverts.filter((a) => a.state === "announced");
        if (won.length > 0) void this.#announce(won, [link]);
      },
      isStopped: () => this.#stopped,
    });
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
    return this.#links.list().map((l) => l.iface);
  }

  /**
   * Replaces the TXT record's keys (a rig's leadership moved, docs/discovery.md): the names won
   * are announced again with it (RFC 6762 s.8.4), a second after the last such change at most.
   */
  setTxt(txt: Record<string, string>): void {
    if (JSON.stringify(txt) === JSON.stringify(this.set.txt)) return;
    this.set = { ...this.set, txt };
    const generation = ++this.#txtGeneration;
    const wait = this.#txtAt + MDNS_LIMITS.multicastGapMs - performance.now();
    void this.#sleep(Math.max(0, wait)).then(() => {
      const won = this.#adverts.filter((a) => a.state === "announced");
      if (this.#stopped || generation !== this.#txtGeneration || won.length === 0) return;
      this.#txtAt = performance.now();
      return this.#announce(won, this.#links.list());
    });
  }

  /** Reads the interface list again: opens sockets on new interfaces, closes those of gone ones. */
  async refreshInterfaces(): Promise<void> {
    if (this.#stopped) return;
    await this.#links.refresh();
  }

  /** Sends goodbyes (TTL 0) for every announced record and closes the sockets. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#poll);
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    const gone = this.#adverts.filter((a) => a.state === "announced");
    if (gone.length > 0) {
      const bye = goodbye(this.#serviceRecords(gone));
      await Promise.all(this.#links.list().map((link) => link.send(bye)));
    }
    await this.#links.close();
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
      await Promise.all(this.#links.list().map((link) => link.send(probe)));
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
    await this.#announce([advert], this.#links.list(), generation);
  }

  /** Sends unsolicited responses, `announcements` times with doubling gaps (RFC 6762 s.8.3). */
  async #announce(adverts: Advert[], links: Link[], generation?: number): Promise<void> {
    let gap = this.timings.announceMs;
    for (let i = 0; i < this.timings.announcements; i++) {
      if (this.#stopped) return;
      if (generation !== undefined && !this.#current(adverts[0]!, generation)) return;
      await Promise.all(links.map((link) => {
        if (!this.#links.isOpen(link)) return;
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
    return this.#links.dropped;
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
      for (const link of this.#links.list()) void link.send(bye);
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
    const announced = this.#adverts.filter((a) => a.state === "announced");
    if (announced.length === 0) return;
    const hosts = hostRecords(this.set.hostname, link.iface.addresses);
    this.#answers.answer(query, from, link, [...this.#serviceRecords(announced), ...hosts]);
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

function goodbye(records: MdnsRecord[]) {
  return response(records.map((r) => ({ ...r, ttl: 0 })), []);
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
