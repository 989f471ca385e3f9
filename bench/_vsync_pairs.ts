/**
 * The per-vsync pairing of the rig group's bench (`_rigs_frames.ts`): two output pages' drawn
 * frames, each its drawn show time (what the page's `FrameTime.next` returned) and when it was
 * drawn on a clock both pages share (both rigs run on one machine: the page's
 * `performance.timeOrigin` plus its frame's time). For each frame page A draws, the frame page B
 * has on screen at that instant (B's last frame drawn at or before it), and how far apart the two
 * are in frame indexes (show time / frame duration). Pure: tested in
 * `tests/bench/vsync_pairs_test.ts`.
 * @module
 */

/** One drawn frame of a page. */
export interface DrawnFrame {
  /** When it was drawn, ms on the clock both pages share. */
  at: number;
  /**
   * What it draws, ms: the show time of its content (the bench: the position of a Clip both rigs
   * play, at the frame's drawn clock), which runs at 1 ms a ms.
   */
  show: number;
}

/** What the pairing gives, one entry per paired frame of page A, in frames (A minus B). */
export interface VsyncPairs {
  /** A's frame index minus that of B's frame on screen at the instant A drew. */
  onScreen: number[];
  /**
   * A's frame index minus B's drawn clock carried to that instant (B's show time plus the time
   * since B drew): how far the two drawn clocks agree, without the phase of the two pages' frames.
   */
  atInstant: number[];
  /** How many paired vsyncs showed frames of different whole indexes (floor of show / frame). */
  differentFrames: number;
}

/**
 * Pairs each frame of `a` with the frame of `b` on screen when it was drawn. Only A's frames
 * within B's recorded span pair: one before B's first frame has none on screen that is known, and
 * one after B's last may have a later B frame that was not recorded. Both lists in drawing order.
 * `loopMs`: the content loops (a looping Clip's duration): a difference is taken the short way
 * round, within half a loop.
 */
export function pairVsyncs(
  a: readonly DrawnFrame[],
  b: readonly DrawnFrame[],
  frameMs: number,
  loopMs = Infinity,
): VsyncPairs {
  const apart = (ms: number) =>
    (Number.isFinite(loopMs) ? ms - loopMs * Math.round(ms / loopMs) : ms) / frameMs;
  const pairs: VsyncPairs = { onScreen: [], atInstant: [], differentFrames: 0 };
  const last = b[b.length - 1];
  if (last === undefined) return pairs;
  let j = -1; // B's last frame drawn at or before A's frame
  for (const frame of a) {
    if (frame.at > last.at) break;
    while (j + 1 < b.length && b[j + 1]!.at <= frame.at) j++;
    if (j < 0) continue;
    const shown = b[j]!;
    pairs.onScreen.push(apart(frame.show - shown.show));
    pairs.atInstant.push(apart(frame.show - (shown.show + frame.at - shown.at)));
    if (Math.floor(frame.show / frameMs) !== Math.floor(shown.show / frameMs)) {
      pairs.differentFrames++;
    }
  }
  return pairs;
}
