/**
 * The session protocol's side of `RtpMidiNetwork`: what each control packet
 * does. An invitation (`IN`) from a peer is answered `OK` when `admit` says
 * so, else `NO` (with no name, so a refusal is never larger than the
 * invitation); its data port's invitation is answered `OK` and a clock sync
 * (`CK` count 0) with a random timestamp. The participant opens only when
 * its answer echoes that timestamp: it proved it receives at the address it
 * claims (return routability), so a datagram forged with a live peer's
 * address cannot open a session or replace one. An invitation from the
 * address and control port of a participant with another SSRC is that peer
 * restarted: the old participant is replaced once the new one proved itself.
 * A data-port invitation nobody answered on the control port gets no answer.
 * Answers (`OK`, `NO`, the proof's `CK`) to one address are budgeted.
 * Our own invitations are followed through `OK` on both ports; a `NO` has
 * them tried again (`invitations.ts`); `BY` ends a session when it carries
 * the session's token (the invitation's, which peers send back) from the
 * participant's SSRC and address: a forged one without it changes nothing.
 * Clock sync is answered on the port it came from; receiver feedback (`RS`) trims the
 * journal we send. Nothing from a sender outside the session is acted on: a
 * packet counts when its SSRC and address match.
 * @module
 */
import { RateLimiter, type RateMeter } from "../../auth/rate_limit.ts";
import { clockStart, clockStep } from "./clock.ts";
import type { ClockPacket, ControlPacket, InvitationPacket } from "./control.ts";
import type { Invitation, Invitations } from "./invitations.ts";
import type { RtpMidiEvent } from "./events.ts";
import { Participant, type Participants } from "./participant.ts";
import type { PeerPort, PortKind, SessionRoute } from "./sockets.ts";

/** What the protocol handling needs of the session. */
export interface SessionControlContext {
  ssrc: number;
  name: string;
  now: () => number;
  participants: Participants;
  invitations: Invitations;
  admit: (address: string, name: string) => boolean;
  send: (packet: ControlPacket, to: SessionRoute) => void;
  emit: (event: RtpMidiEvent) => void;
  /** `p` opened: the packets it sent while pending are read now. */
  opened?: (p: Participant) => void;
  syncIntervalMs: number;
}

/** Answers a second to one address (`OK`, `NO`, the proof's `CK`), and at once. */
export const ANSWERS_PER_SECOND = 20;
const ANSWERS_BURST = 40;

const randomTicks = () => crypto.getRandomValues(new BigUint64Array(1))[0]!;

/** Handles the control packets of a session. */
export class SessionControl {
  #c: SessionControlContext;
  #answers: RateMeter;

  /** Builds the handling over `context`. */
  constructor(context: SessionControlContext) {
    this.#c = context;
    this.#answers = new RateLimiter({
      ratePerSecond: ANSWERS_PER_SECOND,
      burst: ANSWERS_BURST,
      exemptsLocal: false,
      now: context.now,
    }).meter("answers", ANSWERS_PER_SECOND);
    context.invitations.onResolved = () => this.inviteDue(context.now());
  }

  /** Acts on `packet`, read on our `from.kind` port from `from.address:from.port`. */
  handle(packet: ControlPacket, route: SessionRoute): void {
    const { kind, address, port } = route;
    const from = { address, port };
    switch (packet.command) {
      case "IN":
        return kind === "control"
          ? this.#invitedControl(packet, from)
          : this.#invitedData(packet, from);
      case "OK":
        return this.#accepted(kind, packet, from);
      case "NO":
        return this.#declined(packet, address);
      case "BY":
        return this.#bye(packet, address);
      case "CK":
        return this.#clock(kind, packet, from);
      case "RS": {
        const p = this.#c.participants.of(packet.ssrc, address);
        if (!p) return;
        p.lastHeard = this.#c.now();
        p.sender.acknowledge(packet.sequence);
      }
    }
  }

  /** Sends an answer to `to`, when its address is within its budget of answers. */
  #answer(kind: PortKind, packet: ControlPacket, to: PeerPort): void {
    try {
      this.#answers.take(to.address);
    } catch {
      return; // over budget: a flood of forged requests is not reflected
    }
    this.#c.send(packet, { kind, ...to });
  }

  #reply(kind: PortKind, answer: { command: "OK" | "NO"; token: number; to: PeerPort }): void {
    const name = answer.command === "OK" ? this.#c.name : "";
    const packet = { command: answer.command, token: answer.token, ssrc: this.#c.ssrc, name };
    this.#answer(kind, packet, answer.to);
  }

  #invitedControl(packet: InvitationPacket, from: PeerPort): void {
    const { participants } = this.#c;
    const { address, port } = from;
    const { ssrc, token, name } = packet;
    const known = participants.of(ssrc, address) ?? participants.pendingOf(ssrc, address);
    if (known && known.token === token && known.controlPort === port) {
      this.#reply("control", { command: "OK", token, to: from }); // our OK was lost
      return;
    }
    if (!this.#c.admit(address, name)) {
      this.#reply("control", { command: "NO", token, to: from });
      this.#c.emit({ type: "refused", address, name });
      return;
    }
    const replaces = participants.of(ssrc, address) ?? participants.at(address, port);
    if (!replaces && participants.size >= participants.max) {
      this.#reply("control", { command: "NO", token, to: from });
      return;
    }
    const p = new Participant(
      { ssrc, token, name, address, controlPort: port, initiator: "peer" },
      this.#c.now(),
    );
    participants.pend(p);
    this.#reply("control", { command: "OK", token, to: from });
  }

  #invitedData(packet: InvitationPacket, from: PeerPort): void {
    const { participants } = this.#c;
    const { ssrc, token } = packet;
    const live = participants.of(ssrc, from.address);
    if (live && live.token === token && live.initiator === "peer") {
      this.#reply("data", { command: "OK", token, to: from }); // a repeated invitation
      live.lastHeard = this.#c.now();
      return;
    }
    const p = participants.pendingOf(ssrc, from.address);
    if (!p || p.token !== token) return; // nobody invited on the control port: no answer
    p.dataPort = from.port;
    p.challenge ??= randomTicks();
    this.#reply("data", { command: "OK", token, to: from });
    const proof: ClockPacket = {
      command: "CK",
      ssrc: this.#c.ssrc,
      count: 0,
      timestamps: [p.challenge, 0n, 0n],
    };
    this.#answer("data", proof, from);
  }

  /** `p` echoed our random timestamp: it is where it says, so it opens (replacing its earlier run). */
  #proven(p: Participant): void {
    const { participants } = this.#c;
    participants.unpend(p);
    const earlier = participants.of(p.ssrc, p.address) ??
      participants.at(p.address, p.controlPort);
    if (earlier) this.drop(earlier, "replaced", { sayBye: false });
    if (participants.size >= participants.max) return;
    p.challenge = null;
    p.lastHeard = this.#c.now();
    participants.add(p);
    this.#c.emit({ type: "joined", participant: p.info() });
    this.#c.opened?.(p);
  }

  #accepted(kind: PortKind, packet: InvitationPacket, from: PeerPort): void {
    const { address, port } = from;
    const invitation = this.#c.invitations.byToken(packet.token, address);
    if (!invitation) return;
    const now = this.#c.now();
    if (kind === "control" && invitation.stage === "control") {
      this.#c.invitations.accepted(invitation, packet.ssrc, packet.name, now);
      this.inviteDue(now);
      return;
    }
    if (kind !== "data" || invitation.stage !== "data" || packet.ssrc !== invitation.ssrc) return;
    this.#c.invitations.joined(invitation);
    const { participants } = this.#c;
    const earlier = participants.of(packet.ssrc, address) ??
      participants.at(address, invitation.port);
    if (earlier) this.drop(earlier, "replaced", { sayBye: false });
    const p = new Participant({
      ssrc: packet.ssrc,
      token: packet.token,
      name: invitation.name || packet.name,
      address,
      controlPort: invitation.port,
      initiator: "us",
    }, now);
    p.dataPort = port;
    participants.add(p);
    p.nextSyncAt = now + this.#c.syncIntervalMs;
    this.#c.send(clockStart(this.#c.ssrc, now), { kind: "data", address, port });
    this.#c.emit({ type: "joined", participant: p.info() });
  }

  #declined(packet: InvitationPacket, address: string): void {
    const invitation = this.#c.invitations.byToken(packet.token, address);
    if (!invitation || invitation.stage === "joined") return;
    this.#c.invitations.refused(invitation, this.#c.now());
    this.#c.emit({ type: "declined", host: invitation.host, port: invitation.port });
  }

  /** A `BY` counts only with the session's token: npm `rtpmidi` and Cueport send it back. */
  #bye(packet: InvitationPacket, address: string): void {
    const pending = this.#c.participants.pendingOf(packet.ssrc, address);
    if (pending?.token === packet.token) this.#c.participants.unpend(pending);
    const p = this.#c.participants.of(packet.ssrc, address);
    if (p?.token === packet.token) this.drop(p, "bye", { sayBye: false });
  }

  #clock(kind: PortKind, packet: ClockPacket, from: PeerPort): void {
    const { participants } = this.#c;
    const pending = participants.pendingOf(packet.ssrc, from.address);
    if (
      pending && pending.challenge !== null && kind === "data" && packet.count === 1 &&
      packet.timestamps[0] === pending.challenge
    ) {
      return this.#proven(pending);
    }
    const p = participants.of(packet.ssrc, from.address);
    const step = clockStep(packet, this.#c.ssrc, this.#c.now());
    if (!p || !p.isOpen) {
      // Its own sync may start before its answer to ours arrived: count 0 is answered.
      if (pending && pending.dataPort !== null && packet.count === 0) {
        this.#answer(kind, step.reply!, from);
      }
      return;
    }
    p.lastHeard = this.#c.now();
    if (step.reply) this.#c.send(step.reply, { kind, ...from });
    if (step.latencyMs !== null) {
      p.latencyMs = step.latencyMs;
      this.#c.emit({ type: "synced", participant: p.info() });
    }
  }

  /** Sends the invitations that are due at `now`. */
  inviteDue(now: number): void {
    for (const i of this.#c.invitations.due(now)) this.#invite(i);
  }

  #invite(i: Invitation): void {
    const packet = {
      command: "IN" as const,
      token: i.token,
      ssrc: this.#c.ssrc,
      name: this.#c.name,
    };
    if (i.address === null) return;
    const { address } = i;
    if (i.stage === "control") this.#c.send(packet, { kind: "control", address, port: i.port });
    else this.#c.send(packet, { kind: "data", address, port: i.port + 1 });
  }

  /**
   * Ends the session with `p` (saying `BY` unless `options.sayBye` is false);
   * a host we invited is invited again.
   */
  drop(
    p: Participant,
    reason: "bye" | "timeout" | "replaced",
    options: { sayBye?: boolean } = {},
  ): void {
    if (options.sayBye ?? true) this.bye(p);
    this.#c.participants.remove(p);
    this.#c.emit({ type: "left", participant: p.info(), reason });
    const invitation = this.#c.invitations.at(p.address, p.controlPort);
    if (invitation && invitation.stage === "joined" && reason !== "replaced") {
      this.#c.invitations.restart(invitation, this.#c.now());
    }
  }

  /** Says `BY` to `p` on its control port. */
  bye(p: Participant): void {
    const packet = { command: "BY" as const, token: p.token, ssrc: this.#c.ssrc, name: "" };
    this.#c.send(packet, { kind: "control", address: p.address, port: p.controlPort });
  }
}
