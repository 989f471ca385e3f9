/**
 * The output's picture for previews (`outputFrame`): several clients polling a few times a
 * second cost the output one capture per interval, not one per request. Requests for the
 * same size, format and quality share a capture under way and reuse a finished one for
 * `reuseMs`; a remote client may have at most a few different variants taken at once and in
 * a minute (`VariantLimits`, as thumbnails). A picture is answered with a strong ETag of its
 * bytes, so a client that sends it back gets 304 while the output shows the same picture.
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
  /** The remote clients' budget of variants. */
  variants: VariantLimits;
  /** How long a finished capture is answered again (default 200 ms: 5 captures a second). */
  reuseMs?: number;
  now?: () => number;
}

interface Shot {
  /** When the picture came, or null while it is taken. */
  doneAt: number | null;
  picture: Promise<{ picture: OutputPicture; etag: string }>;
}

/** The default time a capture is reused: previews at up to 5 fps share one. */
export const OUTPUT_FRAME_REUSE_MS = 200;

/** Shares the output's pictures among the clients that poll it. */
export class OutputFrames {
  #o: Required<OutputFramesOptions>;
  /** The newest capture of each variant (a few variants at most: size x format x quality). */
  #shots = new Map<string, Shot>();

  /** Builds the previews; nothing is captured before the first request. */
  constructor(options: OutputFramesOptions) {
    this.#o = { reuseMs: OUTPUT_FRAME_REUSE_MS, now: () => performance.now(), ...options };
  }

  /**
   * The output's picture now: a capture under way or younger than `reuseMs` is shared.
   * @throws {CueportError} NOT_READY, UNAVAILABLE (no output runs), RATE_LIMITED
   */
  async frame(input: OutputFrameInput, request?: MediaRequest): Promise<MediaAnswer> {
    const variant = `${input.size ?? "output"}|${input.format}|${
      input.format === "jpeg" ? input.quality : ""
    }`;
    const release = request && !request.isLocal
      ? this.#o.variants.admit(request.client, "output", variant)
      : () => {};
    try {
      const { picture, etag } = await this.#shot(variant, input, request).picture;
      if (input.ifNoneMatch !== undefined && matches(input.ifNoneMatch, etag)) {
        return new MediaNotModified(etag);
      }
      return new MediaImage(picture.bytes, picture.contentType, etag, "output");
    } finally {
      release();
    }
  }

  #shot(variant: string, input: OutputFrameInput, request?: MediaRequest): Shot {
    const now = this.#o.now();
    const last = this.#shots.get(variant);
    if (last && (last.doneAt === null || now - last.doneAt < this.#o.reuseMs)) return last;
    // Shared: the capture runs for whoever waits, not under the first caller's signal.
    const shared = request ? { client: request.client, isLocal: request.isLocal } : undefined;
    const shot: Shot = {
      doneAt: null,
      picture: this.#o.capture(input, shared).then((picture) => ({
        picture,
        etag: `"${createHash("sha256").update(picture.bytes).digest("hex").slice(0, 32)}"`,
      })),
    };
    // A failed capture is not reused: the next request asks again.
    shot.picture.then(
      () => (shot.doneAt = this.#o.now()),
      () => {
        if (this.#shots.get(variant) === shot) this.#shots.delete(variant);
      },
    );
    if (this.#shots.size >= 64 && !this.#shots.has(variant)) {
      this.#shots.delete(this.#shots.keys().next().value!);
    }
    this.#shots.set(variant, shot);
    return shot;
  }
}

/** Whether an If-None-Match header names `etag` (a list, weak forms and `*` included). */
export function matches(header: string, etag: string): boolean {
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
