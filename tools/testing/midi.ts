/**
 * Services under test with network MIDI on: `testSettings` turns it off
 * (parallel services never race for 5004/5005); a MIDI test takes a free even
 * pair of loopback ports instead.
 */
import { SessionSockets } from "../../server/midi/rtp/sockets.ts";
import type { Settings } from "../../server/config.ts";
import type { Project } from "../../protocol/model.ts";
import type { MidiMessage } from "../../server/midi/messages.ts";
import { startTestService, type TestService } from "./service.ts";

/** A free even UDP port on loopback whose next one is free too (a MIDI session's pair). */
export function freeMidiPort(): number {
  const sockets = SessionSockets.open(["127.0.0.1"], 0, () => {});
  const port = sockets.port;
  sockets.close();
  return port;
}

/** How often a pair taken by another test meanwhile is tried again. */
const TRIES = 5;

/**
 * A test service whose network MIDI session runs on a free pair (`ports.midi`);
 * another test taking the pair between its choice and the bind gets a new one.
 */
export async function startMidiService(
  overrides: Partial<Settings> = {},
  options: { demo?: boolean; projects?: Project[] } = {},
): Promise<TestService> {
  for (let attempt = 1;; attempt++) {
    const svc = await startTestService({ midiPort: freeMidiPort(), ...overrides }, options);
    if (svc.service.ports.midi !== null || attempt === TRIES) return svc;
    await svc.stop();
  }
}

/** A Control Change on channel 1. */
export const cc = (controller: number, value: number): MidiMessage => ({
  type: "controlChange",
  channel: 1,
  controller,
  value,
});
