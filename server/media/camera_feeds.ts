/**
 * Live camera thumbnails: a camera is active while it is asked for; its
 * picture is taken at the first request and then every 5 seconds until
 * nobody has asked for `activeMs`, when the refreshing stops and the picture
 * is dropped (the next request takes a fresh one).
 * @module
 */

/** A camera picture as the feeds keep it. */
export interface Frame {
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
}

/** Options of the feeds; the clock and timers can be a test's. */
export interface CameraFeedsOptions {
  /** Takes a picture from a camera. */
  capture(cameraId: string): Promise<Frame>;
  /** Between two pictures of an active camera (default 5 s). */
  refreshMs?: number;
  /** A camera nobody asked for this long stops (default 15 s). */
  activeMs?: number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (id: unknown) => void;
  /** Where failed refreshes are reported. */
  log?: (message: string) => void;
}

interface Feed {
  frame: Frame | null;
  pending: Promise<Frame> | null;
  askedAt: number;
  timer: unknown;
}

/** The feeds of every camera asked for. */
export class CameraFeeds {
  #feeds = new Map<string, Feed>();
  #o: Required<CameraFeedsOptions>;

  /** Builds the feeds; nothing runs before the first request. */
  constructor(options: CameraFeedsOptions) {
    this.#o = {
      refreshMs: 5_000,
      activeMs: 15_000,
      now: () => performance.now(),
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (id) => clearTimeout(id as number),
      log: () => {},
      ...options,
    };
  }

  /** Cameras being refreshed now. */
  get active(): string[] {
    return [...this.#feeds.entries()].filter(([, f]) => f.timer !== null).map(([id]) => id);
  }

  /** The camera's current picture; the first request waits for one to be taken. */
  frame(cameraId: string): Promise<Frame> {
    let feed = this.#feeds.get(cameraId);
    if (!feed) {
      feed = { frame: null, pending: null, askedAt: 0, timer: null };
      this.#feeds.set(cameraId, feed);
    }
    feed.askedAt = this.#o.now();
    if (feed.timer === null) this.#schedule(cameraId, feed);
    if (feed.frame) return Promise.resolve(feed.frame);
    return this.#take(cameraId, feed);
  }

  /** Stops every refresh. */
  close(): void {
    for (const feed of this.#feeds.values()) {
      if (feed.timer !== null) this.#o.clearTimer(feed.timer);
    }
    this.#feeds.clear();
  }

  #take(cameraId: string, feed: Feed): Promise<Frame> {
    feed.pending ??= this.#o.capture(cameraId).then((frame) => {
      if (this.#feeds.get(cameraId) === feed) feed.frame = frame;
      return frame;
    }).finally(() => {
      feed.pending = null;
    });
    return feed.pending;
  }

  #schedule(cameraId: string, feed: Feed): void {
    feed.timer = this.#o.setTimer(() => {
      feed.timer = null;
      if (this.#o.now() - feed.askedAt >= this.#o.activeMs) {
        // Nobody is looking: stop, and forget the picture, which would only grow old.
        this.#feeds.delete(cameraId);
        return;
      }
      this.#schedule(cameraId, feed);
      this.#take(cameraId, feed).catch((error) =>
        this.#o.log(`Camera "${cameraId}": ${(error as Error).message}`)
      );
    }, this.#o.refreshMs);
  }
}
