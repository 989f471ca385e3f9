import assert from "node:assert/strict";
import { newSessionId, SessionTable } from "../../../server/mcp/session_table.ts";

class FakeSession {
  isClosed = false;
  close(): void {
    this.isClosed = true;
  }
}

function table(maxSessions: number, idleMs: number) {
  const clock = { now: 0 };
  const sessions = new SessionTable<FakeSession>({ maxSessions, idleMs, now: () => clock.now });
  return { clock, sessions };
}

Deno.test("newSessionId() is 32 random bytes in base64url, never the same twice", () => {
  const ids = new Set(Array.from({ length: 1000 }, newSessionId));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]{43}$/);
});

Deno.test("SessionTable.add() closes the least recently used session when full", () => {
  const { clock, sessions } = table(2, 1000);
  const [a, b, c] = [new FakeSession(), new FakeSession(), new FakeSession()];
  sessions.add("a", a);
  clock.now = 1;
  sessions.add("b", b);
  clock.now = 2;
  assert.equal(sessions.use("a"), a); // a is now the most recently used
  sessions.add("c", c);
  assert.equal(b.isClosed, true);
  assert.equal(a.isClosed, false);
  assert.equal(sessions.use("b"), undefined);
  assert.equal(sessions.size, 2);
});

Deno.test("SessionTable expires idle sessions: on use and on sweep", () => {
  const { clock, sessions } = table(10, 100);
  const [a, b, c] = [new FakeSession(), new FakeSession(), new FakeSession()];
  sessions.add("a", a);
  sessions.add("b", b);
  clock.now = 60;
  sessions.add("c", c);
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
  const { sessions } = table(10, 100);
  const a = new FakeSession();
  sessions.add("a", a);
  sessions.forget("a");
  assert.equal(sessions.size, 0);
  assert.equal(a.isClosed, false);
  sessions.add("b", new FakeSession());
  sessions.closeAll();
  assert.equal(sessions.size, 0);
});
