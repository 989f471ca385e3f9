/**
 * The undo histories of the open Projects, read from disk when first used
 * and written after every commit (`history.ts` holds the file's shape).
 * @module
 */
import { type History, loadHistory, saveHistory } from "./history.ts";

/** Where the histories live and where their problems are told. */
export interface HistoriesHost {
  /** Folder of one Project. */
  projectDir(projectId: string): string;
  log(message: string): void;
}

/** The undo histories of the open Projects, each loaded once. */
export class Histories {
  #loaded = new Map<string, History>();
  #host: HistoriesHost;

  /** Histories under `host`'s Project folders. */
  constructor(host: HistoriesHost) {
    this.#host = host;
  }

  /** Forgets every loaded history (after a reload from disk). */
  reset(): void {
    this.#loaded.clear();
  }

  /** Forgets the history of one Project: it is read again when next used. */
  forget(projectId: string): void {
    this.#loaded.delete(projectId);
  }

  /** The history of a Project at `revision`: an empty one when its file is missing or stale. */
  async get(projectId: string, revision: number): Promise<History> {
    let history = this.#loaded.get(projectId);
    if (!history) {
      history = await loadHistory(
        this.#host.projectDir(projectId),
        revision,
        (m) => this.#host.log(`Project "${projectId}": ${m}`),
      );
      this.#loaded.set(projectId, history);
    }
    return history;
  }

  /** Makes `history` current and writes it; a write that fails costs undo, and is logged. */
  async save(projectId: string, history: History): Promise<void> {
    this.#loaded.set(projectId, history);
    await saveHistory(this.#host.projectDir(projectId), history).catch((error) =>
      this.#host.log(`Project "${projectId}": cannot save the history: ${error.message}`)
    );
  }
}
