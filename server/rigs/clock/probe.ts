/**
 * The clock probe: how well the exchange does between two machines, before a show. On one rig
 * `probe.ts answer --members <the other's address>` answers (printing `{"port": N}`) until
 * SIGTERM or Ctrl-C, then prints `{"wallGap": G}` (`wallClockGap`); on the other
 * `probe.ts measure --peer <host:port> --members <host>` measures it `--rounds` times and prints one
 * JSON line: the filtered offset's error against `--expect` (the true offset, when known: the
 * tests and the bench inject skews on one machine), its estimated error, the delays, each round's
 * figures (`series`) and its own `wallGap`. `--skew MS` moves this end's clock. Run with
 * `deno run --unstable-net --allow-net`.
 * @module
 */
import { parseArgs } from "node:util";
import { ClockExchange, type ClockPeer } from "./exchange.ts";
import { ClockFilter } from "./filter.ts";
import { epochMonotonicClock, type LocalClock, skewedClock } from "./local_clock.ts";

/** p50, p95 and max of a series, ms (three decimals). */
export interface Spread {
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/** What `measureSeries` found. */
export interface SeriesResult {
  readonly rounds: number;
  /** Rounds that had an answer. */
  readonly answered: number;
  /** |filtered offset - expected offset| of each answered round. */
  readonly offsetError: Spread;
  /** The filter's estimated error of each answered round. */
  readonly estimatedError: Spread;
  /** The chosen sample's delay of each answered round. */
  readonly delay: Spread;
  /** Answered rounds whose true error was within the estimated error. */
  readonly withinEstimate: number;
}

/** The spread of `xs` (zeros when empty). */
export function spreadOf(xs: readonly number[]): Spread {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (x: number) => Number(x.toFixed(3));
  return { p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1) ?? 0) };
}

/** Each answered round's filtered estimate, as `measureRounds` took them. */
export interface SeriesRounds {
  readonly rounds: number;
  /** The filtered offset of each answered round, ms. */
  readonly offsets: readonly number[];
  /** Its estimated error, ms. */
  readonly errors: readonly number[];
  /** The chosen sample's delay, ms. */
  readonly delays: readonly number[];
}

/** Measures `peer` `rounds` times (a burst each, `gapMs` apart) through a filter. */
export async function measureRounds(
  exchange: ClockExchange,
  options: { peer: ClockPeer; local: LocalClock; rounds: number; gapMs?: number; burst?: number },
): Promise<SeriesRounds> {
  const filter = new ClockFilter();
  const offsets: number[] = [];
  const errors: number[] = [];
  const delays: number[] = [];
  for (let i = 0; i < options.rounds; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, options.gapMs ?? 20));
    const sample = await exchange.measure(options.peer, { count: options.burst ?? 8 });
    if (sample === null) continue;
    filter.add(sample);
    const estimate = filter.estimate(options.local.now())!;
    offsets.push(estimate.offset);
    errors.push(estimate.error);
    delays.push(estimate.delay);
  }
  return { rounds: options.rounds, offsets, errors, delays };
}

/** The rounds judged against the true offset `expectMs`. */
export function judgeRounds(series: SeriesRounds, expectMs: number): SeriesResult {
  const offsetErrors = series.offsets.map((offset) => Math.abs(offset - expectMs));
  return {
    rounds: series.rounds,
    answered: series.offsets.length,
    offsetError: spreadOf(offsetErrors),
    estimatedError: spreadOf(series.errors),
    delay: spreadOf(series.delays),
    withinEstimate: offsetErrors.filter((error, i) => error <= series.errors[i]!).length,
  };
}

/** Measures `peer` `rounds` times and judges the rounds against `expectMs`. */
export async function measureSeries(
  exchange: ClockExchange,
  options: {
    peer: ClockPeer;
    local: LocalClock;
    rounds: number;
    expectMs: number;
    gapMs?: number;
    burst?: number;
  },
): Promise<SeriesResult> {
  return judgeRounds(await measureRounds(exchange, options), options.expectMs);
}

/**
 * How far `clock` (this process's `epochMonotonicClock` by default) is from the system's wall
 * clock, ms: the median over `ticks` of `Date.now()`'s millisecond ticks, the clock read as each
 * tick happens. Each process puts its monotonic clock on the epoch scale once
 * (`performance.timeOrigin`), so two processes on one machine may disagree by what the wall clock
 * did between their starts; the difference of their gaps, taken at one moment, is that
 * disagreement: a skew injected between two processes is only known with it.
 */
export function wallClockGap(clock: LocalClock = epochMonotonicClock, ticks = 9): number {
  const gaps: number[] = [];
  for (let i = 0; i < ticks; i++) {
    const before = Date.now();
    let wall = before;
    while (wall === before) wall = Date.now();
    gaps.push(clock.now() - wall);
  }
  return gaps.sort((a, b) => a - b)[Math.floor(ticks / 2)]!;
}

async function main(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      host: { type: "string", default: "0.0.0.0" },
      port: { type: "string", default: "0" },
      members: { type: "string", default: "127.0.0.1" },
      skew: { type: "string", default: "0" },
      peer: { type: "string" },
      rounds: { type: "string", default: "100" },
      expect: { type: "string", default: "0" },
    },
  });
  const members = new Set(values.members.split(","));
  const local = skewedClock(epochMonotonicClock, Number(values.skew));
  const exchange = ClockExchange.open({
    hostname: values.host,
    port: Number(values.port),
    isMember: (address) => members.has(address),
    local,
  });
  if (positionals[0] === "answer") {
    console.log(JSON.stringify({ port: exchange.addr.port }));
    // Answers until SIGTERM or SIGINT, then says its wall clock gap (`wallClockGap`).
    const stop = Promise.withResolvers<void>();
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      Deno.addSignalListener(signal, stop.resolve);
    }
    await stop.promise;
    console.log(JSON.stringify({ wallGap: wallClockGap() }));
  } else {
    const [hostname, port] = (values.peer ?? "").split(/:(?=\d+$)/);
    const series = await measureRounds(exchange, {
      peer: { hostname: hostname!, port: Number(port) },
      local,
      rounds: Number(values.rounds),
    });
    const wallGap = wallClockGap();
    console.log(JSON.stringify({ ...judgeRounds(series, Number(values.expect)), series, wallGap }));
  }
  await exchange.close();
}

if (import.meta.main) await main(Deno.args);
