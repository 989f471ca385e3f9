/**
 * The one clock timer of an engine, always set to the next thing that can
 * happen (a Clip end, a crossing's end, a cue, a lyric, a Song end or a position report), and
 * what happens when it fires: ended Clips stop, a crossing ends, the Song's cues fire, its
 * lyric line and end are reported, and positions are reported at intervals.
 * @module
 */
import type { Clock, TimerId } from "../clock.ts";
import type { ClipVoices } from "./clip_voices.ts";
import type { Crossings } from "./crossings.ts";
import type { EngineEvents } from "./engine_events.ts";
import type { ProjectIndex } from "./project_index.ts";
import type { SongDeck } from "./song_deck.ts";
import type { SongEvent, SongTransport } from "./song_transport.ts";

/** The parts of the engine the timer drives. */
export interface TimerHost {
  clock: Clock;
  /** Interval of `positions` reports while anything plays; 0 disables them. */
  positionIntervalMs(): number;
  index: ProjectIndex;
  voices: ClipVoices;
  deck: SongDeck;
  crossings: Crossings;
  events: EngineEvents;
  /** Whether any Clip or the Song is playing. */
  isPlaying(): boolean;
}

/** The engine's clock timer and the work it does when it fires. */
export class EngineTimer {
  #timer: TimerId | null = null;
  #lastReport = 0;
  #host: TimerHost;

  /** No timer set yet. */
  constructor(host: TimerHost) {
    this.#host = host;
  }

  /** Whether a timer is set. */
  get isSet(): boolean {
    return this.#timer !== null;
  }

  /** Processes whatever is due now and sets the timer for the next thing. */
  settle(): void {
    this.#processDue();
    this.schedule();
  }

  /** Cancels the timer. */
  cancel(): void {
    if (this.#timer !== null) this.#host.clock.clearTimer(this.#timer);
    this.#timer = null;
  }

  /** Sets the timer for the next thing that can happen (none when nothing will). */
  schedule(): void {
    this.cancel();
    const { clock } = this.#host;
    const positionIntervalMs = this.#host.positionIntervalMs();
    const times = this.#host.voices.endTimes();
    const songNext = this.#host.deck.transport?.nextEventTime();
    if (songNext !== null && songNext !== undefined) times.push(songNext);
    const crossingEnd = this.#host.crossings.endTime();
    if (crossingEnd !== null) times.push(crossingEnd);
    if (positionIntervalMs > 0 && this.#host.isPlaying()) {
      times.push(Math.max(this.#lastReport + positionIntervalMs, clock.now()));
    }
    if (times.length === 0) return;
    this.#timer = clock.setTimer(Math.min(...times), () => {
      this.#timer = null;
      this.settle();
    });
  }

  /** Handles ends, cues, lyrics and reports due at the current clock reading. */
  #processDue(): void {
    const positionIntervalMs = this.#host.positionIntervalMs();
    const now = this.#host.clock.now();
    this.#host.voices.endDue(now);
    const crossed = this.#host.crossings.endDue(now);
    if (crossed) this.#host.events.transitionChanged("transition-ended", crossed);
    const song = this.#host.deck.transport;
    for (const event of song?.due(now) ?? []) this.#onSongEvent(song!, event);
    if (
      positionIntervalMs > 0 && this.#host.isPlaying() &&
      now - this.#lastReport >= positionIntervalMs
    ) {
      this.#lastReport = now;
      this.#host.events.playstate({ event: "positions" });
    }
  }

  #onSongEvent(song: SongTransport, event: SongEvent): void {
    const { events, voices } = this.#host;
    if (event.type === "end") {
      song.stop();
      this.#host.deck.stateChanged("stopped", "ended");
      return;
    }
    if (event.type === "lyric") {
      events.playstate({
        event: "lyric-changed",
        songID: song.songId,
        index: event.index,
        text: event.text,
      });
      return;
    }
    const { cue } = event;
    if (!this.#host.index.hasClip(cue.clipID)) return; // a cue whose Clip was deleted does nothing
    if (cue.action === "stop") voices.stop(cue.clipID, "cue");
    else if (cue.action === "play" && voices.get(cue.clipID)?.state === "playing") {
      // already playing: a play cue leaves it alone
    } else voices.start(cue.clipID, { reason: "cue" });
    events.playstate({
      event: "cue-fired",
      songID: song.songId,
      cueId: cue.id,
      clipID: cue.clipID,
      action: cue.action,
    });
  }
}
