/**
 * The output's picture for previews (`outputFrame`): several clients polling a few times a
 * second cost the output at most one capture per `reuseMs`, plus one when a larger picture
 * than the last capture is asked, whatever formats and qualities they ask, and never more
 * than one capture at once. A capture is taken at the largest picture asked in the last
 * `recentMs` and every smaller variant is scaled and encoded from it on the render pool
 * (`derive`), once per capture (at most `MAX_VARIANTS` kept; more are made and not kept). A
 * variant is never made larger than the capture it comes from: a larger one (or one without
 * a size, the output's) waits for the next capture, taken at the largest asked as soon as
 * the one under way ends. A finished capture is answered again for `reuseMs`, then dropped
 * with its variants at the next request. A remote client's picture without a size
 * is at most `REMOTE_OUTPUT_SIDE` on its longer side (a full-size draw costs the output most)
 * and it may have at most a few different variants taken at once and in a minute
 * (`VariantLimits`, as thumbnails). A picture is answered with a strong ETag of its bytes, so
 * a client that sends it back gets 304 while the output shows the same picture.
 * @module
 */
import { createHash } from "node:crypto";
import {
  type MediaAnswer,
  MediaImage,
  MediaNotModified,
  type MediaRequest,
  type OutputFrameInput,
} from "../core/mod.ts";
import type { VariantLimits } from "./variant_limits.ts";

/** A picture of the output, encoded as asked. */
export interface OutputPicture {
  bytes: Uint8Array<ArrayBuffer>;
  contentType: "image/jpeg" | "image/png";
}

/** Options of the previews; the clock can be a test's. */
export interface OutputFramesOptions {
  /** Takes the output's picture as asked (the player's `output.frame`, re-encoded if needed). */
  capture(input: OutputFrameInput, request: MediaRequest | undefined): Promise<OutputPicture>;
  /** Scales and encodes a capture to another variant (on the render pool). */
  derive(
    from: OutputPicture,
    input: OutputFrameInput,
    request: MediaRequest | undefined,
  ): Promise<OutputPicture>;
  /** The remote clients' budget of variants. */
  variants: VariantLimits;
  /** How long a finished capture is answered again (default 200 ms: 5 captures a second). */
  reuseMs?: number;
  /** How long a variant asked counts for the size of the next captures (default 2 s). */
  recentMs?: number;
  now?: () => number;
}

interface Answer {
  picture: OutputPicture;
  etag: string;
}

interface Shot {
  /** When the picture was asked of the player: its age. */
  takenAt: number;
  isDone: boolean;
  /** What the player was asked for; null while the shot waits for the one under way. */
  ask: OutputFrameInput | null;
  /** The variants waiting for this shot before it started (it is taken to cover them). */
  waiting: OutputFrameInput[];
  picture: Promise<OutputPicture>;
  /** The variants answered from this capture, made once each. */
  variants: Map<string, Promise<Answer>>;
}

/** The default time a capture is reused: previews at up to 5 fps share one. */
export const OUTPUT_FRAME_REUSE_MS = 200;
/** The longer side of a remote client's picture asked without a size, at most. */
export const REMOTE_OUTPUT_SIDE = 1280;
/** Variants remembered for the size of the next capture, at most. */
const MAX_RECENT = 64;
/** Variants kept per capture, at most: more are made for their caller and not kept. */
export const MAX_VARIANTS = 64;

/** Shares the output's pictures among the clients that poll it. */
export class OutputFrames {
  #o: Required<OutputFramesOptions>;
  /** The newest capture; older ones are dropped with their variants. */
  #shot: Shot | null = null;
  /** The capture to take when `#shot` ends, for a larger picture than it. */
  #next: Shot | null = null;
  /** The variants asked lately and when: the next capture is the largest of them. */
  #recent = new Map<string, { input: OutputFrameInput; at: number }>();

  /** Builds the previews; nothing is captured before the first request. */
  constructor(options: OutputFramesOptions) {
    this.#o = {
      reuseMs: OUTPUT_FRAME_REUSE_MS,
      recentMs: 2000,
      now: () => performance.now(),
      ...options,
    };
  }

  /** How many captures and variants are held now (for tests and diagnostics). */
  get held(): { captures: number; variants: number } {
    return { captures: this.#shot ? 1 : 0, variants: this.#shot?.variants.size ?? 0 };
  }

  /**
   * The output's picture now: a capture under way or younger than `reuseMs` is shared.
   * @throws {CueportError} NOT_READY, NO_OUTPUT (no output runs), RATE_LIMITED
   */
  async frame(input: OutputFrameInput, request?: MediaRequest): Promise<MediaAnswer> {
    const isRemote = request !== undefined && !request.isLocal;
    const wanted = isRemote && input.size === undefined
      ? { ...input, size: REMOTE_OUTPUT_SIDE }
      : input;
    const variant = keyOf(wanted);
    const release = isRemote
      ? this.#o.variants.admit(request.client, "output", variant, "the output's picture")
      : () => {};
    try {
      const { picture, etag } = await this.#answer(variant, wanted, request);
      if (input.ifNoneMatch !== undefined && matches(input.ifNoneMatch, etag)) {
        return new MediaNotModified(etag);
      }
      return new MediaImage(picture.bytes, picture.contentType, etag, "output");
    } finally {
      release();
    }
  }

  #answer(variant: string, input: OutputFrameInput, request?: MediaRequest): Promise<Answer> {
    const now = this.#o.now();
    this.#remember(variant, input, now);
    // Shared: the work runs for whoever waits, not under the first caller's signal.
    const shared = request ? { client: request.client, isLocal: request.isLocal } : undefined;
    const shot = this.#current(now, input, shared);
    const known = shot.variants.get(variant);
    if (known) return known;
    const answer = shot.picture
      .then((picture) =>
        keyOf(shot.ask!) === variant ? picture : this.#o.derive(picture, input, shared)
      )
      .then((picture) => ({ picture, etag: etagOf(picture.bytes) }));
    if (shot.variants.size >= MAX_VARIANTS) return answer;
    shot.variants.set(variant, answer);
    // A failed variant is not reused: the next request makes it again.
    answer.catch(() => {
      if (shot.variants.get(variant) === answer) shot.variants.delete(variant);
    });
    return answer;
  }

  /**
   * The capture to answer `input` from: the newest while under way or young if it is at
   * least as large, else the next one (after the one under way, which stays the only one).
   */
  #current(now: number, input: OutputFrameInput, request: MediaRequest | undefined): Shot {
    const last = this.#shot;
    // By the picture's age, not the answer's: a client polling every 250 ms gets a new one.
    const isFresh = last !== null && (!last.isDone || now - last.takenAt < this.#o.reuseMs);
    if (isFresh && covers(last.ask, input)) return last;
    if (isFresh && !last.isDone) {
      this.#next ??= this.#after(last, request);
      this.#next.waiting.push(input);
      return this.#next;
    }
    const ask = this.#largest();
    const shot: Shot = { ...blank(now), ask, picture: this.#o.capture(ask, request) };
    this.#taken(shot, shot.picture);
    return shot;
  }

  /** A shot taken when `last` ends, at the largest asked by then. */
  #after(last: Shot, request: MediaRequest | undefined): Shot {
    const shot: Shot = {
      ...blank(this.#o.now()),
      picture: last.picture.then(() => {}, () => {}).then(() => {
        if (this.#next === shot) this.#next = null;
        shot.ask = this.#largest(shot.waiting);
        shot.takenAt = this.#o.now();
        const picture = this.#o.capture(shot.ask, request);
        this.#taken(shot, picture);
        return picture;
      }),
    };
    return shot;
  }

  /** `shot`'s capture is asked: it is the newest, done when its picture is (dropped if not). */
  #taken(shot: Shot, picture: Promise<OutputPicture>): void {
    this.#shot = shot;
    picture.then(
      () => (shot.isDone = true),
      () => {
        if (this.#shot === shot) this.#shot = null;
      },
    );
  }

  #remember(variant: string, input: OutputFrameInput, now: number): void {
    for (const [key, { at }] of this.#recent) {
      if (now - at >= this.#o.recentMs) this.#recent.delete(key);
    }
    this.#recent.delete(variant);
    if (this.#recent.size >= MAX_RECENT) this.#recent.delete(this.#recent.keys().next().value!);
    this.#recent.set(variant, { input, at: now });
  }

  /**
   * The largest variant asked lately or `waiting` (full size wins), JPEG at the best quality
   * asked.
   */
  #largest(waiting: OutputFrameInput[] = []): OutputFrameInput {
    const asked = [...this.#recent.values()].map((r) => r.input).concat(waiting);
    const side = (i: OutputFrameInput) => i.size ?? Infinity;
    const largest = asked.reduce((a, b) =>
      side(b) > side(a) || (side(b) === side(a) && b.format === "png") ? b : a
    );
    const quality = Math.max(...asked.map((i) => (i.format === "jpeg" ? i.quality : 0)));
    const { ifNoneMatch: _, ...ask } = largest;
    return ask.format === "jpeg" ? { ...ask, quality } : ask;
  }
}

/** A shot not yet asked of the player. */
function blank(now: number): Omit<Shot, "picture"> {
  return { takenAt: now, isDone: false, ask: null, waiting: [], variants: new Map() };
}

/** Whether a capture taken as `ask` (null: not started, taken to cover) is as large as `input`. */
function covers(ask: OutputFrameInput | null, input: OutputFrameInput): boolean {
  if (ask === null || ask.size === undefined) return true;
  return input.size !== undefined && input.size <= ask.size;
}

/** A variant's name: size, format and (JPEG) quality. */
function keyOf(input: OutputFrameInput): string {
  return `${input.size ?? "output"}|${input.format}|${
    input.format === "jpeg" ? input.quality : ""
  }`;
}

function etagOf(bytes: Uint8Array): string {
  return `"${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}"`;
}

/** Whether an If-None-Match header names `etag` (a list, weak forms and `*` included). */
export function matches(header: string, etag: string): boolean {
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
