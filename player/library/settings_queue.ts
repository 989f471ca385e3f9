/**
 * The queue of the writes of `player.json` (the active Project, the closed ones, the
 * screen and the sound): writes never overlap, and the last state asked for always lands.
 * @module
 */

/** Saves the settings off the request path, one write at a time. */
export class SettingsQueue {
  #write: Promise<void> = Promise.resolve();
  #dirty = false;
  #save: () => Promise<void>;
  #log: (message: string) => void;

  /** `save` writes the settings as they are when it runs; `log` hears a failed write. */
  constructor(save: () => Promise<void>, log: (message: string) => void) {
    this.#save = save;
    this.#log = log;
  }

  /** Saves the settings soon; asked again before that write starts, it is the same write. */
  save(): void {
    if (this.#dirty) return;
    this.#dirty = true;
    this.#write = this.#write.then(() => {
      this.#dirty = false;
      return this.#save();
    }).catch((error) => this.#log(`Cannot save settings: ${error.message}`));
  }

  /** Resolves once the last write asked for is done (or failed and was logged). */
  saved(): Promise<void> {
    return this.#write;
  }
}
