// A real RTP-MIDI peer for Cueport's tests: npm `rtpmidi` (an AppleMIDI
// implementation nobody here wrote), driven by JSON lines on stdin, telling
// what happens by JSON lines on stdout.
//
// Commands (one JSON object a line):
//   {"cmd":"start","port":5006,"name":"peer"}  open a session (control port, data port + 1);
//     "address":"127.0.0.2" binds that address only (a participant from elsewhere on the LAN)
//   {"cmd":"invite","host":"127.0.0.1","port":5004}  invite a session
//   {"cmd":"send","bytes":[144,60,64]}  send MIDI bytes to every stream
//   {"cmd":"sync"}  start a clock sync from this side on every stream
//   {"cmd":"feedback"}  send receiver feedback (RS) on every stream now
//   {"cmd":"whenSynced"}  say "synced" once every stream can send (rtpmidi sends no MIDI before)
//   {"cmd":"end"}  say BY to every stream and close the ports
// Events: ready, joined, left, message (bytes), packet (sequence, journal
// header as rtpmidi parses it), control (command, ssrc), ended, error.
"use strict";

const readline = require("node:readline");
// Silenced before rtpmidi loads: its logger writes to stdout, where only events go.
require("rtpmidi/src/logger").silent = !process.env.MIDI_PEER_DEBUG;
const rtpmidi = require("rtpmidi");

let session = null;

function say(event) {
  process.stdout.write(JSON.stringify(event) + "\n");
}

function streamInfo(stream) {
  const rinfo = stream.rinfo1 || {};
  return { name: stream.name, ssrc: stream.ssrc, address: rinfo.address, port: rinfo.port };
}

function start({ port, name, address }) {
  session = new rtpmidi.Session(port, name, name);
  if (address) {
    // rtpmidi binds every address: its two sockets are bound to this one instead.
    for (const socket of [session.controlChannel, session.messageChannel]) {
      const bind = socket.bind.bind(socket);
      socket.bind = (p) => bind(p, address);
    }
  }
  session.on("ready", () => say({ event: "ready", port, ssrc: session.ssrc }));
  session.on("error", (error) => say({ event: "error", message: String(error) }));
  session.on("streamAdded", ({ stream }) => say({ event: "joined", ...streamInfo(stream) }));
  session.on("streamRemoved", ({ stream }) => say({ event: "left", ...streamInfo(stream) }));
  session.on("message", (_delta, bytes) => say({ event: "message", bytes: Array.from(bytes) }));
  session.on("midi", (packet) => {
    const journal = packet.journal
      ? {
        checkpoint: packet.journal.checkPointPacketSequenceNumber,
        // rtpmidi parses each channel journal's header; its table of chapters it loses (it
        // keeps an empty object), so the table of contents is given as the octet itself.
        channels: packet.journal.channelJournals.map((c) => ({
          channel: c.channel,
          length: c.length,
        })),
        bytes: Array.from(packet.payload.subarray(packet.journalOffset)),
      }
      : null;
    say({ event: "packet", sequence: packet.sequenceNumber, journal });
  });
  session.on("controlMessage", (m) => say({ event: "control", command: m.command, ssrc: m.ssrc }));
  session.start();
}

function whenSynced() {
  const canSend = (s) => s.latency !== null && s.timeDifference !== null;
  const timer = setInterval(() => {
    if (session.streams.length === 0 || !session.streams.every(canSend)) return;
    clearInterval(timer);
    say({ event: "synced", streams: session.streams.length });
  }, 20);
}

function run(command) {
  switch (command.cmd) {
    case "start":
      return start(command);
    case "invite":
      return session.connect({ address: command.host, port: command.port });
    case "send":
      // rtpmidi's sendMessage(bytes) alone loses the bytes: give it a (unused) time first.
      return session.sendMessage(0, command.bytes);
    case "sync":
      return session.streams.forEach((s) => s.rinfo2 && s.sendSynchronization());
    case "feedback":
      return session.streams.forEach((s) => s.rinfo1 && s.sendReceiverFeedback());
    case "whenSynced":
      return whenSynced();
    case "end":
      return session.end(() => say({ event: "ended" }));
    default:
      say({ event: "error", message: `unknown command ${command.cmd}` });
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() === "") return;
  try {
    run(JSON.parse(line));
  } catch (error) {
    say({ event: "error", message: String(error && error.stack || error) });
  }
});
process.stdin.on("end", () => process.exit(0));
process.on("uncaughtException", (error) => {
  say({ event: "error", message: String(error && error.stack || error) });
});
