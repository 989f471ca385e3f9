/**
 * Installs the network MIDI test peer (`tools/midi_peer/`: npm `rtpmidi` run by Node) with
 * `npm ci` when its `node_modules` is missing or older than its lock file; kept until the lock
 * changes (the lock's hash is stored in `node_modules/.cueport-lock`). `rtpmidi`'s optional
 * Bonjour modules (native `mdns`, a git `avahi_pub`) are overridden by a stub that fails to load
 * (`midi_peer/no_bonjour`), which `rtpmidi` tolerates: the tests invite by address.
 * Run alone (`deno run -A tools/midi_peer_build.ts`) it installs and exits non-zero on failure.
 * @module
 */
import { createHash } from "node:crypto";
import { peerProblem } from "./peers.ts";
import { buildInChild, buildMain } from "./_build_child.ts";

/** The peer's folder. */
export const MIDI_PEER_DIR = new URL("./midi_peer/", import.meta.url).pathname;
/** Where the hash of the lock file the install was made from is kept. */
const STAMP = "node_modules/.cueport-lock";

/** The SHA-256 of the peer's lock file, as hex. */
async function lockHash(dir: string): Promise<string> {
  const lock = await Deno.readFile(`${dir}package-lock.json`);
  return createHash("sha256").update(lock).digest("hex");
}

/** Whether the install in `dir` is there and made from its current lock file. */
export async function midiPeerInstalled(dir = MIDI_PEER_DIR): Promise<boolean> {
  const stored = await Deno.readTextFile(`${dir}${STAMP}`).catch(() => "");
  const module = await Deno.stat(`${dir}node_modules/rtpmidi/package.json`).then(
    () => true,
    () => false,
  );
  return module && stored.trim() === await lockHash(dir);
}

/**
 * Installs the peer in `dir` when it is missing or stale, printing one line (`say`) when it does.
 * Why it cannot be used (Node missing or unfit, npm failed), or null when it is installed.
 */
export async function ensureMidiPeerInstalled(
  say: (line: string) => void,
  dir = MIDI_PEER_DIR,
): Promise<string | null> {
  if (await midiPeerInstalled(dir)) return null;
  const node = peerProblem("node");
  if (node) return node;
  say(
    "installing the network MIDI test peer (npm ci in tools/midi_peer; kept until its lock changes)",
  );
  const args = ["ci", "--no-audit", "--no-fund", "--loglevel=error"];
  const out = await new Deno.Command("npm", { args, cwd: dir, stdout: "null", stderr: "piped" })
    .output();
  if (!out.success) {
    const last = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
    return `npm ci failed in tools/midi_peer: ${last || `exit ${out.code}`}`;
  }
  await Deno.writeTextFile(`${dir}${STAMP}`, await lockHash(dir) + "\n");
  return null;
}

/**
 * `ensureMidiPeerInstalled` in a child Deno that may write in the peer's folder only (its install
 * writes nowhere else): its line goes to our stderr; why it cannot be used, or null.
 */
export function ensureMidiPeerInChild(): Promise<string | null> {
  return buildInChild(import.meta.url, MIDI_PEER_DIR);
}

if (import.meta.main) await buildMain(ensureMidiPeerInstalled);
