/**
 * The session protocol's side of `RtpMidiNetwork`: what each control packet
 * does. An invitation (`IN`) from a peer is answered `OK` when `admit` says
 * so, else `NO`; its data port's invitation opens the session. An `IN` from
 * the address and control port of a participant with another SSRC is that
 * peer restarted: the old participant is replaced. Our own invitations are
 * followed through `OK` on both ports; `NO` ends them, `BY` ends a session.
 * Clock sync (`CK`) is answered on the port it came from; receiver feedback
 * (`RS`) trims the journal we send. Nothing from a sender outside the
 * session is acted on: a packet counts when its SSRC and address match.
 * @module
 */
import { clockStart, clockStep } from "./clock.ts";
import type { ClockPacket, ControlPacket, InvitationPacket } from "./control.ts";
import type { Invitation, Invitations } from "./invitations.ts";
import type { RtpMidiEvent } from "./events.ts";
import { Participant, type Participants } from "./participant.ts";
import type { PortKind } from "./sockets.ts";

/** What the protocol handling needs of the session. */
export interface SessionControlContext {
  ssrc: number;
  name: string;
  now: () => number;
  participants: Participants;
  invitations: Invitations;
  admit: (address: string, name: string) => boolean;
  send: (kind: PortKind, packet: ControlPacket, address: string, port: number) => void;
  emit: (event: RtpMidiEvent) => void;
  syncIntervalMs: number;
}

/** Handles the control packets of a session. */
export class SessionControl {
  #c: SessionControlContext;

  /** Builds the handling over `context`. */
  constructor(context: SessionControlContext) {
    this.#c = context;
  }

  /** Acts on `packet`, read on the `kind` port from `address:port`. */
  handle(kind: PortKind, packet: ControlPacket, address: string, port: number): void {
    switch (packet.command) {
      case "IN":
        return kind === "control"
          ? this.#invitedControl(packet, address, port)
          : this.#invitedData(packet, address, port);
      case "OK":
        return this.#accepted(kind, packet, address, port);
      case "NO":
        return this.#declined(packet, address);
      case "BY":
        return this.#bye(packet, address);
      case "CK":
        return this.#clock(kind, packet, address, port);
      case "RS": {
        const p = this.#c.participants.of(packet.ssrc, address);
        if (!p) return;
        p.lastHeard = this.#c.now();
        p.sender.acknowledge(packet.sequence);
      }
    }
  }

  #reply(kind: PortKind, command: "OK" | "NO", token: number, address: string, port: number) {
    this.#c.send(kind, { command, token, ssrc: this.#c.ssrc, name: this.#c.name }, address, port);
  }

  #invitedControl(packet: InvitationPacket, address: string, port: number): void {
    const { participants } = this.#c;
    const same = participants.of(packet.ssrc, address);
    if (same && same.token === packet.token && same.controlPort === port) {
      this.#reply("control", "OK", packet.token, address, port); // our OK was lost
      return;
    }
    if (!this.#c.admit(address, packet.name)) {
      this.#reply("control", "NO", packet.token, address, port);
      this.#c.emit({ type: "refused", address, name: packet.name });
      return;
    }
    const earlier = same ?? participants.at(address, port);
    if (earlier) this.drop(earlier, "replaced", false);
    if (participants.size >= participants.max) {
      this.#reply("control", "NO", packet.token, address, port);
      return;
    }
    const { ssrc, token, name } = packet;
    const p = new Participant(
      { ssrc, token, name, address, controlPort: port, initiator: "peer" },
      this.#c.now(),
    );
    participants.add(p);
    this.#reply("control", "OK", packet.token, address, port);
  }

  #invitedData(packet: InvitationPacket, address: string, port: number): void {
    const p = this.#c.participants.of(packet.ssrc, address);
    if (!p || p.token !== packet.token || p.initiator !== "peer") {
      this.#reply("data", "NO", packet.token, address, port);
      return;
    }
    this.#reply("data", "OK", packet.token, address, port);
    p.lastHeard = this.#c.now();
    if (p.open) return; // a repeated invitation
    p.dataPort = port;
    this.#c.emit({ type: "joined", participant: p.info() });
  }

  #accepted(kind: PortKind, packet: InvitationPacket, address: string, port: number): void {
    const invitation = this.#c.invitations.byToken(packet.token, address);
    if (!invitation) return;
    const now = this.#c.now();
    if (kind === "control" && invitation.stage === "control") {
      this.#c.invitations.accepted(invitation, packet.ssrc, packet.name, now);
      this.inviteDue(now);
      return;
    }
    if (kind !== "data" || invitation.stage !== "data" || packet.ssrc !== invitation.ssrc) return;
    invitation.stage = "joined";
    const { participants } = this.#c;
    const earlier = participants.of(packet.ssrc, address) ??
      participants.at(address, invitation.port);
    if (earlier) this.drop(earlier, "replaced", false);
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
    this.#c.send("data", clockStart(this.#c.ssrc, now), address, port);
    this.#c.emit({ type: "joined", participant: p.info() });
  }

  #declined(packet: InvitationPacket, address: string): void {
    const invitation = this.#c.invitations.byToken(packet.token, address);
    if (!invitation || invitation.stage === "joined") return;
    invitation.stage = "declined";
    this.#c.emit({ type: "declined", host: invitation.host, port: invitation.port });
  }

  #bye(packet: InvitationPacket, address: string): void {
    const p = this.#c.participants.of(packet.ssrc, address);
    if (p) this.drop(p, "bye", false);
  }

  #clock(kind: PortKind, packet: ClockPacket, address: string, port: number): void {
    const p = this.#c.participants.of(packet.ssrc, address);
    if (!p || !p.open) return;
    p.lastHeard = this.#c.now();
    const step = clockStep(packet, this.#c.ssrc, this.#c.now());
    if (step.reply) this.#c.send(kind, step.reply, address, port);
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
    if (i.stage === "control") this.#c.send("control", packet, i.host, i.port);
    else this.#c.send("data", packet, i.host, i.port + 1);
  }

  /**
   * Ends the session with `p` (saying `BY` when `sayBye`); a host we invited
   * is invited again.
   */
  drop(p: Participant, reason: "bye" | "timeout" | "replaced", sayBye = true): void {
    if (sayBye) this.bye(p);
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
    this.#c.send("control", packet, p.address, p.controlPort);
  }
}
