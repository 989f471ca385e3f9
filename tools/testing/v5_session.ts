/**
 * A scripted 5.0.0 client, written from the spec's 5.0.0 column only
 * (section 9 of ../shared/api-6.0.md): HTTP paths without `/v1` (but the
 * action and edit routes), the body `{action: {name, params}}` with
 * class-style names, seeks in seconds, directions `forward`/`reverse`, the
 * WebSocket at `/` with no `/v1`, the `connected` event after auth, actions
 * with `correlationId` answered by `action-response`, state updates as
 * `{type: "event", payload: {event: "state-update", updates}}`.
 *
 * `runV5Session` runs it against a service's 5.0.0 ports and returns what it
 * saw; `deno run --allow-net tools/testing/v5_session.ts HOST HTTP_PORT WS_PORT [TOKEN]`
 * runs it against a running service (an operator's check after an upgrade)
 * and prints each step.
 */

// deno-lint-ignore no-explicit-any
type Json = any;

/** What the session saw, for a test to check. */
export interface V5SessionReport {
  steps: string[];
  clientId: string;
  /** Every WebSocket message received, in order. */
  messages: Json[];
  /** Every HTTP status received. */
  statuses: number[];
}

/** A 5.0.0 HTTP client. */
export class V5Http {
  readonly statuses: number[] = [];
  #base: string;
  #token: string | undefined;

  constructor(host: string, port: number, token?: string) {
    this.#base = `http://${host}:${port}`;
    this.#token = token;
  }

  /** A request; its status and JSON body. */
  async call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Json }> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    const res = await fetch(this.#base + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    this.statuses.push(res.status);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** `POST /api/v1/action` with the 5.0.0 body. */
  action(name: string, params: unknown[] = []): Promise<{ status: number; body: Json }> {
    return this.call("POST", "/api/v1/action", { action: { name, params } });
  }
}

/** A 5.0.0 WebSocket client. */
export class V5Socket {
  readonly messages: Json[] = [];
  #unread: Json[] = [];
  #wake: (() => void) | null = null;
  #ws: WebSocket;
  #next = 1;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.onmessage = (e) => {
      const message = JSON.parse(e.data);
      this.messages.push(message);
      this.#unread.push(message);
      this.#wake?.();
    };
  }

  /** Connects to `ws://host:port` (no `/v1`). */
  static async open(host: string, port: number): Promise<V5Socket> {
    const ws = new WebSocket(`ws://${host}:${port}`);
    const socket = new V5Socket(ws);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = () => reject(new Error(`Cannot connect to ws://${host}:${port}`));
    });
    return socket;
  }

  /** Messages received and not yet taken. */
  get unread(): readonly Json[] {
    return this.#unread;
  }

  /** Waits for (and takes) the first unread message matching `match` (10 s, then fails). */
  async take(match: (m: Json) => boolean): Promise<Json> {
    const deadline = performance.now() + 10_000;
    for (;;) {
      const i = this.#unread.findIndex(match);
      if (i >= 0) return this.#unread.splice(i, 1)[0];
      if (performance.now() > deadline) throw new Error("No matching 5.0.0 message within 10 s");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 250);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Authenticates; resolves with the `connected` event that follows. */
  async auth(token?: string): Promise<Json> {
    this.#ws.send(JSON.stringify({ type: "auth", payload: token ? { token } : {} }));
    return await this.take((m) => m.type === "event" && m.payload?.event === "connected");
  }

  /** Sends an action; resolves with its `action-response`. */
  async action(name: string, params: unknown[] = []): Promise<Json> {
    const correlationId = `v5-${this.#next++}`;
    this.#ws.send(
      JSON.stringify({ type: "action", payload: { action: { name, params } }, correlationId }),
    );
    return await this.take((m) =>
      m.type === "action-response" && m.correlationId === correlationId
    );
  }

  /** Waits for a state update holding an update that matches; returns that update. */
  async update(match: (u: Json) => boolean): Promise<Json> {
    const event = await this.take((m) =>
      m.type === "event" && m.payload?.event === "state-update" &&
      m.payload.updates.some(match)
    );
    return event.payload.updates.find(match);
  }

  /** Closes and waits for the close. */
  async close(): Promise<void> {
    if (this.#ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((r) => this.#ws.addEventListener("close", r));
    this.#ws.close();
    await closed;
  }
}

function check(condition: unknown, what: string): void {
  if (!condition) throw new Error(`5.0.0 session: ${what}`);
}

/** What the session changes, as it was before: what `putBack` restores. */
interface ShowState {
  songId: string;
  songPosition: number;
  /** The Song's transport position, seconds (a stopped Song may have been sought). */
  songSeconds: number;
  selectedClipId: string | null;
  level: number;
  /** The Clip whose direction the session turns, once it has chosen it, and its direction. */
  clip?: { clipId: string; direction: string };
}

/**
 * The show before the session, read first. 5.0.0 has no read of the output
 * level (only its `volume` update when it changes), so that one number comes
 * from the 6.0 interface that `/api/info` names as the successor.
 * @throws {Error} while the show plays: the session would stop it
 */
async function readShow(
  http: V5Http,
  host: string,
  info: Json,
  token: string | undefined,
): Promise<ShowState> {
  const active = await http.call("GET", "/api/active");
  check(active.status === 200, "GET /api/active");
  const state = active.body.playstate;
  const playing = state.clips.map((c: Json) => `Clip ${c.clipID}`);
  if (state.song && state.song.state !== "stopped") {
    playing.unshift(`Song ${state.song.songID} ${state.song.state}`);
  }
  if (playing.length > 0) {
    throw new Error(
      `5.0.0 session: The show is playing (${playing.join(", ")}): run the check when it is ` +
        "stopped (it plays a Clip and stops everything)",
    );
  }
  const song = active.body.project.songs.find((s: Json) => s.songID === state.activeSongID);
  check(song, "an active Song");
  const port = info.deprecation.successor.httpPort;
  const app = await fetch(`http://${host}:${port}/api/v1/app-state`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  check(app.ok, `GET /api/v1/app-state on the 6.0 port ${port}: ${app.status}`);
  return {
    songId: song.songID,
    songPosition: song.position,
    songSeconds: state.song?.position ?? 0,
    selectedClipId: state.selectedClipID,
    level: (await app.json()).volume,
  };
}

/** Puts back what the session changed: the Song, its selected Clip and position, the level. */
async function putBack(http: V5Http, projectId: string, before: ShowState): Promise<string> {
  const act = async (name: string, params: unknown[] = []) => {
    const answer = await http.action(name, params);
    check(answer.status === 200, `putting back, ${name}: ${JSON.stringify(answer.body)}`);
  };
  await act("StopAllClipsAction");
  await act("SongSelectAction", [before.songPosition]); // stops the Song, selects its first Clip
  const state = async () => (await http.call("GET", `/api/projects/${projectId}/playstate`)).body;
  if (before.selectedClipId !== null && (await state()).selectedClipID !== before.selectedClipId) {
    // No 5.0.0 action selects a Clip alone: playing one in the active Song selects it.
    await act("PlayClipAction", [before.selectedClipId]);
    await act("StopClipAction", [before.selectedClipId]);
  }
  if (before.songSeconds > 0) await act("SeekSongAction", [before.songId, before.songSeconds]);
  if (before.clip) {
    const { clipId, direction } = before.clip;
    const project = (await http.call("GET", `/api/projects/${projectId}`)).body;
    const now = project.clips.find((c: Json) => c.clipID === clipId)?.direction;
    if (now !== direction) await act("ClipDirectionAction", [clipId, direction]);
  }
  await act("OutputLevelAction", [before.level]);
  const after = await state();
  check(after.activeSongID === before.songId, `Song "${before.songId}" selected again`);
  check(after.selectedClipID === before.selectedClipId, "the selected Clip put back");
  return `Put back: Song "${before.songId}", Clip "${before.selectedClipId}", ` +
    `output level ${before.level}`;
}

/**
 * The session a 5.0.0 integration runs: reads, actions by class name over
 * HTTP and WebSocket, a seek in seconds, a direction `reverse`, the updates
 * they cause. It runs only on a show that is stopped, and leaves it as it
 * found it: the Song and selected Clip, the Clip's direction and the output
 * level are put back (the Project's revision grows by the two direction
 * changes).
 */
export async function runV5Session(
  host: string,
  ports: { http: number; ws: number },
  options: { token?: string; log?: (line: string) => void } = {},
): Promise<V5SessionReport> {
  const steps: string[] = [];
  const step = (line: string) => {
    steps.push(line);
    options.log?.(line);
  };
  const http = new V5Http(host, ports.http, options.token);
  const info = await http.call("GET", "/api/info");
  check(info.status === 200 && typeof info.body.apiVersion === "string", "GET /api/info");
  step(`GET /api/info: API ${info.body.apiVersion}, app ${info.body.appVersion}`);
  const before = await readShow(http, host, info.body, options.token);
  const list = await http.call("GET", "/api/projects");
  check(list.status === 200 && list.body.projects.length > 0, "GET /api/projects");
  const active = await http.call("GET", "/api/active");
  check(active.status === 200, "GET /api/active");
  const projectId: string = active.body.project.projectId;
  const songs = await http.call("GET", `/api/projects/${projectId}/songs`);
  const song = songs.body.songs.find((s: Json) => s.clipIDs.length > 0 && s.audio);
  check(song, "a Song with Clips and audio");
  const one = await http.call("GET", `/api/projects/${projectId}/songs/${song.songID}`);
  check(one.status === 200 && one.body.songID === song.songID, "GET one Song");
  const clipId: string = song.clipIDs[0];
  const clip = await http.call(
    "GET",
    `/api/projects/${projectId}/songs/${song.songID}/clips/${clipId}`,
  );
  check(clip.status === 200 && clip.body.clipID === clipId, "GET one Clip");
  for (const path of ["", "/playstate", "/effects", "/visualizers"]) {
    check((await http.call("GET", `/api/projects/${projectId}${path}`)).status === 200, path);
  }
  check((await http.call("GET", "/api/cameras")).status === 200, "GET /api/cameras");
  step(`read Project "${projectId}", Song "${song.songID}", Clip "${clipId}"`);

  const ws = await V5Socket.open(host, ports.ws);
  let clientId: string;
  let isDone = false;
  try {
    const connected = await ws.auth(options.token);
    clientId = connected.payload.clientId ?? connected.clientId;
    check(clientId, "the connected event carries the client ID");
    step(`WebSocket: connected as ${clientId}`);

    const song0 = await ws.action("SongSelectAction", [song.position]);
    check(song0.payload.success, `SongSelectAction: ${JSON.stringify(song0.payload)}`);
    const played = await ws.action("PlayClipByIndexAction", [0]);
    check(played.payload.success, `PlayClipByIndexAction: ${JSON.stringify(played.payload)}`);
    const playing = await ws.update((u) =>
      u.updateType === "playstate" && u.data.event === "clip-play-state-changed" &&
      u.data.clipID === clipId && u.data.newState === "playing"
    );
    check(playing, "the Clip plays");
    step(`PlayClipByIndexAction [0]: ${clipId} playing`);

    const duration: number = clip.body.duration;
    const seek = await http.action("SeekClipAction", [clipId, duration / 2]);
    check(seek.status === 200, `SeekClipAction: ${JSON.stringify(seek.body)}`);
    await ws.update((u) => u.data.event === "clip-seeked" && u.data.clipID === clipId);
    const state = await http.call("GET", `/api/projects/${projectId}/playstate`);
    const position = state.body.clips.find((c: Json) => c.clipID === clipId).position;
    check(Math.abs(position - duration / 2) < 0.01, `position ${position} after the seek`);
    step(`SeekClipAction to ${duration / 2} s: at ${position} s`);

    // The other direction, then back: one of the two is the 5.0.0 word `reverse`.
    const direction: string = clip.body.direction;
    const other = direction === "reverse" ? "forward" : "reverse";
    before.clip = { clipId, direction };
    for (const to of [other, direction]) {
      const turned = await ws.action("ClipDirectionAction", [clipId, to]);
      check(turned.payload.success, `ClipDirectionAction: ${JSON.stringify(turned.payload)}`);
      const changed = await ws.update((u) => u.updateType === "clip" && u.data.clipID === clipId);
      check(changed.data.clip.direction === to, `the update says ${to}`);
      const after = await http.call("GET", `/api/projects/${projectId}/playstate`);
      check(
        after.body.clips.find((c: Json) => c.clipID === clipId).direction === to,
        `the play state says ${to}`,
      );
    }
    step(`ClipDirectionAction ${other}, then ${direction}`);

    const level = before.level === 0.5 ? 0.25 : 0.5;
    const set = await http.action("OutputLevelAction", [level]);
    check(set.status === 200, "OutputLevelAction");
    const volume = await ws.update((u) => u.updateType === "volume");
    check(volume.data.level === level, "the volume update");
    step(`OutputLevelAction ${level}: volume update`);

    for (const name of ["NextSongAction", "StopAllClipsAction"]) {
      const answer = await ws.action(name);
      check(answer.payload.success, `${name}: ${JSON.stringify(answer.payload)}`);
    }
    const stopped = await http.action("StopAction");
    check(stopped.status === 200 || stopped.status === 500, "StopAction answered");
    step("NextSongAction, StopAllClipsAction, StopAction");
    isDone = true;
  } finally {
    await ws.close();
    // Put back also after a failed step; a failure to put back then does not hide the first.
    const putting = putBack(http, projectId, before);
    if (isDone) step(await putting);
    else await putting.catch((error) => options.log?.((error as Error).message));
  }
  return { steps, clientId, messages: ws.messages, statuses: http.statuses };
}

if (import.meta.main) {
  const [host = "127.0.0.1", httpPort = "51736", wsPort = "51734", token] = Deno.args;
  await runV5Session(host, { http: Number(httpPort), ws: Number(wsPort) }, {
    ...(token ? { token } : {}),
    log: (line) => console.log(line),
  });
  console.log("5.0.0 session: ok");
}
