import assert from "node:assert/strict";
import { CueportError } from "../../../server/core/mod.ts";
import { newSessionId, SessionTable } from "../../../server/mcp/session_table.ts";

class FakeSession {
  isClosed = false;
  close(): void {
    this.isClosed = true;
  }
}

const LOCAL = { id: "local", isLocal: true };

function table(maxSessions: number, idleMs: number, maxSessionsPerDevice = 8) {
  const clock = { now: 0 };
  const sessions = new SessionTable<FakeSession>({
    maxSessions,
    maxSessionsPerDevice,
    idleMs,
    recycleIdleMs: 50,
    now: () => clock.now,
  });
  const add = (id: string, owner = LOCAL) => {
    const session = new FakeSession();
    sessions.add(id, session, sessions.admit(owner));
    return session;
  };
  return { clock, sessions, add };
}

function isRefusal(retryAfterSeconds: number) {
  return (e: unknown) => {
    assert.ok(e instanceof CueportError);
    assert.equal(e.code, "RATE_LIMITED");
    assert.equal(e.details?.retryAfterSeconds, retryAfterSeconds);
    return true;
  };
}

Deno.test("newSessionId() is 32 random bytes in base64url, never the same twice", () => {
  const ids = new Set(Array.from({ length: 1000 }, newSessionId));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]{43}$/);
});

Deno.test("SessionTable.add() closes the least recently used local session when the local pool is full", () => {
  const { clock, sessions, add } = table(2, 1000);
  const a = add("a");
  clock.now = 1;
  const b = add("b");
  clock.now = 2;
  assert.equal(sessions.use("a"), a); // a is now the most recently used
  add("c");
  assert.equal(b.isClosed, true);
  assert.equal(a.isClosed, false);
  assert.equal(sessions.use("b"), undefined);
  assert.equal(sessions.size, 2);
});

Deno.test("SessionTable expires idle sessions: on use and on sweep", () => {
  const { clock, sessions, add } = table(10, 100);
  const a = add("a");
  const b = add("b");
  clock.now = 60;
  const c = add("c");
  clock.now = 101;
  assert.equal(sessions.use("a"), undefined, "idle past the limit");
  assert.equal(a.isClosed, true);
  assert.equal(sessions.sweep(), 1, "b");
  assert.equal(b.isClosed, true);
  assert.equal(c.isClosed, false);
  clock.now = 161;
  assert.equal(sessions.sweep(), 1);
  assert.equal(sessions.size, 0);
});

Deno.test("SessionTable.forget() drops a session that ended by itself without closing it again", () => {
  const { sessions, add } = table(10, 100);
  const a = add("a");
  sessions.forget("a");
  assert.equal(sessions.size, 0);
  assert.equal(a.isClosed, false);
  add("b");
  sessions.closeAll();
  assert.equal(sessions.size, 0);
});

Deno.test("SessionTable.admit() refuses a remote device past its bound instead of closing a session", () => {
  const { clock, sessions, add } = table(32, 10_000, 2);
  const phone = { id: "dev-phone", isLocal: false };
  const operator = add("op");
  const [p1, p2] = [add("p1", phone), add("p2", phone)];
  clock.now = 20;
  assert.throws(() => sessions.admit(phone), isRefusal(1));
  assert.equal(sessions.size, 3);
  assert.equal(operator.isClosed || p1.isClosed || p2.isClosed, false);
  // Another device has its own bound; the local pool is apart.
  add("t1", { id: "dev-tablet", isLocal: false });
  add("op2");
  // Once its least recently used session has been idle recycleIdleMs, the device's own goes for a new one.
  sessions.use("p2");
  clock.now = 60;
  add("p3", phone);
  assert.equal(p1.isClosed, true);
  assert.equal(p2.isClosed, false);
  assert.equal(operator.isClosed, false);
});

Deno.test("SessionTable: remote sessions fill their own pool and never close local ones", () => {
  const { clock, sessions, add } = table(2, 1000, 8);
  const operator = add("op");
  add("a1", { id: "dev-a", isLocal: false });
  clock.now = 100;
  add("b1", { id: "dev-b", isLocal: false });
  // The remote pool is full: a third device waits for the oldest remote session to expire.
  assert.throws(() => sessions.admit({ id: "dev-c", isLocal: false }), isRefusal(1));
  assert.equal(operator.isClosed, false);
  assert.equal(sessions.use("op"), operator);
  // A local client still gets in (its pool evicts only local sessions).
  add("op2");
  add("op3");
  assert.equal(operator.isClosed, true, "the least recently used local session");
  assert.equal(sessions.size, 4);
});

Deno.test("SessionTable.admit() counts sessions being opened; release() gives the place back", () => {
  const { sessions } = table(32, 1000, 1);
  const phone = { id: "dev-phone", isLocal: false };
  const first = sessions.admit(phone);
  assert.throws(() => sessions.admit(phone), CueportError);
  first.release();
  first.release(); // once only
  const second = sessions.admit(phone);
  sessions.add("p", new FakeSession(), second);
  assert.throws(() => sessions.admit(phone), CueportError);
});
