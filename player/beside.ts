/**
 * A request whose slow part runs beside the others. The player answers
 * requests one at a time, in the order read, and one that writes the Project
 * holds those after it; copying a 4 GB file there would hold every action for
 * a minute. A handler that returns a `Beside` leaves that order at once: its
 * slow part (measuring and copying files) runs while later requests are
 * answered, and the short step it resolves with (applying the edit) then
 * joins the order like a request read at that moment.
 * @module
 */

/** The step to run in order once the slow part is done. */
export type OrderedStep<T> = () => T | Promise<T>;

/** Work of one request that runs beside the ordered ones. */
export class Beside<T> {
  /** Resolves with the step to run in order; rejects when the slow part failed. */
  readonly ready: Promise<OrderedStep<T>>;

  /** Wraps the slow part, which is already running. */
  constructor(ready: Promise<OrderedStep<T>>) {
    this.ready = ready;
  }

  /** Runs both parts in turn: for callers outside the request loop. */
  async settle(): Promise<T> {
    return await (await this.ready)();
  }
}
