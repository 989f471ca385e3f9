/**
 * Valid inputs to start mutating from: actions drawn from the catalog with
 * the demo Project's ids, edits of docs/edits.md, WebSocket messages of
 * docs/websocket.md and player requests of docs/player-protocol.md.
 * `file.import` is left out on purpose (it names a path on this machine).
 * @module
 */
import { ACTIONS, type ParamKind } from "../../protocol/actions.ts";
import type { Rng } from "./_prng.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Ids of the demo Project a fresh data dir gets. */
export const DEMO = {
  project: "demo",
  songs: ["song-opening", "song-midnight", "song-finale"],
  clips: ["clip-aurora", "clip-rings", "clip-strobe", "clip-sunset", "clip-checker", "clip-waves"],
  effects: ["effect-blur", "effect-shift"],
  visualizers: ["viz-bars"],
  presets: { effect: ["fx-blur", "fx-color-shift"], visualizer: ["viz-spectrum"] },
  controls: ["A", "B", "C", "Z"],
} as const;

function paramValue(kind: ParamKind, rng: Rng): string | number | boolean {
  switch (kind) {
    case "clipId":
      return rng.pick(DEMO.clips);
    case "songId":
      return rng.pick(DEMO.songs);
    case "index":
      return rng.int(4);
    case "fraction":
      return Math.round(rng.next() * 100) / 100;
    case "boolean":
      return rng.chance(0.5);
    case "control":
      return rng.pick(DEMO.controls);
    case "target":
      return `clip:${rng.pick(DEMO.clips)}/opacity`;
    case "number":
      return rng.range(-10, 10);
    case "text":
      return rng.string(8);
    case "direction":
      return rng.pick(["forward", "backward"]);
    case "recordMode":
      return rng.pick(["now", "next-trigger"]);
    case "presetKind":
      return rng.pick(["effect", "visualizer"]);
    case "projectId":
      return "demo"; // the active one: PROJECT_SELECT answers unchanged
    case "region":
      return "full";
  }
}

/** A valid action of the catalog as the HTTP and WebSocket body holds it (params in order). */
export function validAction(rng: Rng): { name: string; params: Json[] } {
  const spec = rng.pick(ACTIONS);
  const params = spec.params.filter((p) => !p.isOptional || rng.chance(0.5))
    .map((p) => paramValue(p.kind, rng));
  return { name: spec.name, params };
}

/** The same action in the player's named, typed form (`action.run` params). */
export function playerAction(rng: Rng): Json {
  const spec = rng.pick(ACTIONS);
  const params = Object.fromEntries(
    spec.params.filter((p) => !p.isOptional || rng.chance(0.5))
      .map((p) => [p.name, paramValue(p.kind, rng)]),
  );
  return { name: spec.name, params, projectId: null };
}

/** A valid edit (`{name, params}`) on the demo Project. */
export function validEdit(rng: Rng): { name: string; params: Json } {
  const song = rng.pick(DEMO.songs);
  const clip = rng.pick(DEMO.clips);
  const title = `Fuzz ${rng.string(6)}`;
  const edits: Array<{ name: string; params: Json }> = [
    { name: "song.add", params: { title } },
    { name: "song.update", params: { songID: song, title } },
    { name: "song.move", params: { songID: song, position: rng.int(3) } },
    { name: "song.set_lyrics", params: { songID: song, lyrics: [{ time: 1, text: title }] } },
    {
      name: "song.set_timeline",
      params: { songID: song, cues: [{ time: 0, action: "play", clipID: clip }] },
    },
    { name: "clip.move", params: { clipID: clip, position: 0 } },
    { name: "clip.update", params: { clipID: clip, name: title } },
    { name: "project.rename", params: { name: title } },
    { name: "project.set_zoom", params: { zoom: 1.5 } },
    { name: "project.set_display", params: { width: 1280, height: 720, fps: 30 } },
    { name: "project.set_background_clips", params: { clipIDs: [clip] } },
    { name: "project.undo", params: {} },
    { name: "project.redo", params: {} },
    { name: "effect.update", params: { effectID: rng.pick(DEMO.effects), enabled: true } },
    { name: "visualizer.update", params: { visualizerID: "viz-bars", name: title } },
    { name: "control.update", params: { controlID: rng.pick(DEMO.controls), name: title } },
    {
      name: "control.set_targets",
      params: {
        controlID: "B",
        targets: [{ target: `clip:${clip}/opacity`, min: 0, max: 1, curve: "linear" }],
      },
    },
    {
      name: "preset.validate",
      params: { kind: "effect", name: title, type: "blur", params: { radius: 2 } },
    },
  ];
  return rng.pick(edits);
}

/** A valid HTTP body for a POST route, by path. */
export function validBody(path: string, rng: Rng): Json {
  if (path === "/api/v1/action") return validAction(rng);
  if (path === "/api/v1/edit") {
    return rng.chance(0.2)
      ? { edits: [validEdit(rng), validEdit(rng)].filter((e) => !e.name.startsWith("project.")) }
      : validEdit(rng);
  }
  if (path === "/api/v1/pair") return { otp: String(rng.int(1_000_000)).padStart(6, "0") };
  if (path.startsWith("/api/v1/approvals/")) return { approve: rng.chance(0.5) };
  return {};
}

/** A valid-shaped WebSocket message (docs/websocket.md). */
export function validWsMessage(rng: Rng, id: string): Json {
  switch (rng.int(7)) {
    case 0:
      return {
        id,
        type: "action",
        action: validAction(rng),
        ...(rng.chance(0.3) ? { base: 1 } : {}),
      };
    case 1:
      return {
        id,
        type: "subscribe",
        payload: { updateTypes: ["playstate"], projectIds: ["demo"], positions: false },
      };
    case 2:
      return { id, type: "full" };
    case 3:
      return {
        id,
        type: "query",
        query: rng.pick(["projects", "project", "songs", "song", "clips", "playstate", "presets"]),
        params: { projectId: "demo", songId: rng.pick(DEMO.songs), ids: [rng.pick(DEMO.clips)] },
      };
    case 4:
      return { id, type: "auth", payload: rng.chance(0.5) ? {} : { token: "e30.e30.sig" } };
    case 5:
      return { id, type: "ping" };
    default:
      return { id, type: "action", action: validAction(rng), velocity: rng.int(128) };
  }
}

/** A valid player request (docs/player-protocol.md), never `shutdown`. */
export function validPlayerRequest(rng: Rng, id: number | string): Json {
  const base = { jsonrpc: "2.0", id };
  switch (rng.int(8)) {
    case 0:
      return { ...base, method: "state.get" };
    case 1:
    case 2:
    case 3:
      return { ...base, method: "action.run", params: playerAction(rng) };
    case 4:
      return {
        ...base,
        method: "edit.apply",
        params: { projectId: null, edits: [validEdit(rng)] },
      };
    case 5:
      return {
        ...base,
        method: "approval.request",
        params: { requestId: `ap-${rng.string(8)}`, address: "127.0.0.1", deviceName: "Fuzz" },
      };
    case 6:
      return { ...base, method: "pairing.show", params: { otp: "123456", expiresAt: "x" } };
    default:
      return {
        ...base,
        method: "initialize",
        params: { protocolVersion: "1.0", client: { name: "fuzz", version: "0" } },
      };
  }
}
