/**
 * `EditorWindow` against a scripted browser: the player's own `DevTools` over a pipe whose other
 * end is this file, which answers the window's commands and sends the target events in the order
 * a test asks for, so the races of a loaded browser (issue 42: a window asked to close sends its
 * last events after the editor was opened again) happen every time, in the same order.
 */
import assert from "node:assert/strict";
import { DevTools } from "../../../player/output/devtools.ts";
import { type EditorBrowser, EditorWindow } from "../../../player/output/editor_window.ts";

const BASE = "http://127.0.0.1:4321/0123abcd/";
const EDITOR_URL = `${BASE}editor.html`;

/** A target as the scripted browser lists it. */
interface Target {
  targetId: string;
  type: string;
  url: string;
}

/** The browser's end of the pipe: its targets, the commands it got, the events it holds back. */
class ScriptedBrowser {
  readonly devtools: DevTools;
  readonly targets = new Map<string, Target>();
  /** Windows opened, and windows brought to the front, by id. */
  readonly opened: string[] = [];
  readonly activated: string[] = [];
  /** Events of windows closed, not sent yet while `isHolding` (a loaded browser's late ones). */
  isHolding = false;
  /** Called as `Target.getTargets` comes, before its answer. */
  onGetTargets: () => void = () => {};
  readonly #held: { method: string; params: unknown }[] = [];
  #next = 1;

  constructor() {
    this.devtools = new DevTools((text) => this.#command(JSON.parse(text.slice(0, -1))));
    this.targets.set("output", { targetId: "output", type: "page", url: BASE });
  }

  /** The supervisor's part the window uses: this browser, running, headless. */
  supervisor(): EditorBrowser {
    return {
      mode: "headless",
      pid: 1,
      whenRunning: () => Promise.resolve(this.devtools),
      openPage: (url) => Promise.resolve(this.open(url)),
      restart: () => {},
    };
  }

  /** A new page at `url` (its `targetCreated` sent before the answer, as a loaded browser may). */
  open(url: string): string {
    const target = { targetId: `W${this.#next++}`, type: "page", url };
    this.targets.set(target.targetId, target);
    this.opened.push(target.targetId);
    this.#event("Target.targetCreated", { targetInfo: target });
    return target.targetId;
  }

  /** The page `targetId` ends: its last info (detached), then its end (held while holding). */
  end(targetId: string): void {
    const target = this.targets.get(targetId);
    if (!target) return;
    this.targets.delete(targetId);
    const late = [
      {
        method: "Target.targetInfoChanged",
        params: { targetInfo: { ...target, attached: false } },
      },
      { method: "Target.targetDestroyed", params: { targetId } },
    ];
    if (this.isHolding) this.#held.push(...late);
    else for (const { method, params } of late) this.#event(method, params);
  }

  /** The page `targetId` changed (its title, say): its info is sent again. */
  changed(targetId: string): void {
    this.#event("Target.targetInfoChanged", { targetInfo: this.targets.get(targetId) });
  }

  /** The page `targetId` crashed. */
  crash(targetId: string): void {
    this.#event("Target.targetCrashed", { targetId, status: "crashed", errorCode: 11 });
  }

  /** Sends the events held back, in their order. */
  release(): void {
    this.isHolding = false;
    for (const { method, params } of this.#held.splice(0)) this.#event(method, params);
  }

  #command(request: { id: number; method: string; params: Record<string, string> }): void {
    const { id, method, params } = request;
    const targetId = params.targetId ?? "";
    const isThere = this.targets.has(targetId);
    switch (method) {
      case "Target.getTargets":
        this.onGetTargets();
        return this.#answer(id, { targetInfos: [...this.targets.values()] });
      case "Target.activateTarget":
        if (isThere) this.activated.push(targetId);
        return this.#answer(id, isThere ? {} : null);
      case "Target.closeTarget":
        this.#answer(id, isThere ? { success: true } : null);
        return this.end(targetId);
      default:
        return this.#answer(id, {});
    }
  }

  /** Answers request `id` (null: the browser's error for a target it does not have). */
  #answer(id: number, result: unknown): void {
    const error = { code: -32602, message: "No target with given id found" };
    this.#send(result === null ? { id, error } : { id, result });
  }

  #event(method: string, params: unknown): void {
    this.#send({ method, params });
  }

  #send(message: unknown): void {
    this.devtools.receive(new TextEncoder().encode(JSON.stringify(message) + "\0"));
  }
}

/** An editor window on a scripted browser, and how many times it told the state it closed. */
function editorWindow() {
  const browser = new ScriptedBrowser();
  const logs: string[] = [];
  const told = { closed: 0 };
  const window = new EditorWindow(browser.supervisor(), {
    url: EDITOR_URL,
    outputUrl: BASE,
    closed: () => told.closed++,
    log: (message) => logs.push(message),
  });
  return { browser, window, told, logs };
}

/** Opens the editor (at `openedAt`), then closes it; the window's events are held back. */
async function openedThenClosed(w: ReturnType<typeof editorWindow>): Promise<string> {
  w.window.follow("t1");
  await w.window.settled();
  const first = w.browser.opened[0]!;
  w.browser.isHolding = true;
  w.window.follow(null);
  await w.window.settled();
  assert.ok(!w.browser.targets.has(first), "the window was asked to close");
  return first;
}

Deno.test("EditorWindow: the closed window's late events before the editor's next open close nothing", async () => {
  const w = editorWindow();
  const first = await openedThenClosed(w);
  // OPEN_EDITOR again, then (before the open's turn) the closed window's last events.
  w.window.follow("t2");
  w.browser.release();
  await w.window.settled();
  assert.equal(w.told.closed, 0, "the state was told the editor closed");
  const second = w.browser.opened[1];
  assert.ok(second, `no window opened for the editor opened again: ${w.logs.join("; ")}`);
  assert.notEqual(second, first);
  // The next OPEN_EDITOR brings the new window to the front.
  w.window.follow("t3");
  await w.window.settled();
  assert.deepEqual(w.browser.activated, [second]);
});

Deno.test("EditorWindow: the closed window's late events after the new window opened close nothing", async () => {
  const w = editorWindow();
  await openedThenClosed(w);
  w.window.follow("t2");
  await w.window.settled();
  const second = w.browser.opened[1]!;
  w.browser.release();
  assert.equal(w.told.closed, 0, "the state was told the editor closed");
  w.window.follow("t3");
  await w.window.settled();
  assert.deepEqual(w.browser.activated, [second], w.logs.join("; "));
  // The new window closed by the user is the editor's end, told once.
  w.browser.end(second);
  assert.equal(w.told.closed, 1);
});

Deno.test("EditorWindow: a crashed window's late events after the editor opened again close nothing", async () => {
  const w = editorWindow();
  w.window.follow("t1");
  await w.window.settled();
  const first = w.browser.opened[0]!;
  w.browser.isHolding = true;
  w.browser.crash(first);
  assert.equal(w.told.closed, 1, "the crash closes the editor");
  w.window.follow(null); // the state, told, closes the editor
  w.window.follow("t2");
  await w.window.settled();
  w.browser.release();
  assert.equal(w.told.closed, 1, "the crashed window's end closed the editor opened again");
  const second = w.browser.opened[1];
  assert.ok(second, `no window opened for the editor opened again: ${w.logs.join("; ")}`);
  assert.equal(w.browser.targets.has(first), false, "the crashed window is closed");
});

Deno.test("EditorWindow: a window closed by the user as it opened is not kept: the next open opens one", async () => {
  const w = editorWindow();
  // The user closes the window before the answer to its creation comes.
  const open = w.browser.open.bind(w.browser);
  w.browser.open = (url) => {
    const id = open(url);
    w.browser.end(id);
    return id;
  };
  w.window.follow("t1");
  await w.window.settled();
  assert.equal(w.told.closed, 1);
  w.browser.open = open;
  w.window.follow("t2");
  await w.window.settled();
  assert.equal(w.browser.opened.length, 2, `no new window: ${w.logs.join("; ")}`);
  assert.deepEqual(w.browser.activated, []);
});

Deno.test("EditorWindow: the window being closed, changed as the editor opens again, is not the new one", async () => {
  const w = editorWindow();
  w.window.follow("t1");
  await w.window.settled();
  const first = w.browser.opened[0]!;
  // Closed, then opened again at once; the old window's title changes while the close looks
  // for it.
  w.browser.onGetTargets = () => w.browser.changed(first);
  w.window.follow(null);
  w.window.follow("t2");
  await w.window.settled();
  assert.equal(w.browser.targets.has(first), false, "the old window is closed");
  assert.ok(w.browser.opened[1], `no window opened for the editor opened again: ${w.logs}`);
  assert.equal(w.told.closed, 0);
});

Deno.test("EditorWindow: another page at the editor's address (a tab opened by hand) is not the editor", async () => {
  const w = editorWindow();
  w.window.follow("t1");
  await w.window.settled();
  const editor = w.browser.opened[0]!;
  const tab = w.browser.open(EDITOR_URL); // the user's own tab, in the editor's window
  w.browser.changed(tab);
  w.browser.end(tab);
  assert.equal(w.told.closed, 0, "the tab's end closed the editor");
  w.window.follow("t2");
  await w.window.settled();
  assert.deepEqual(w.browser.activated, [editor], w.logs.join("; "));
  assert.equal(w.browser.opened.length, 2, "a window opened for an editor still open");
});
