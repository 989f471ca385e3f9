/**
 * Who the output's browser runs as. Never root: when the player runs as root
 * (Cueport started by hand with sudo, or a unit without `User=`), the browser
 * runs as the system user `cueport-output`, which the install makes
 * (`cueport service install`; the tests' peer step, `tools/test.ts`). Any
 * other account runs the browser as itself (the service unit's user: its
 * `DynamicUser`).
 * @module
 */
import type { BrowserAccount } from "./browser_process.ts";
import { OUTPUT_ACCOUNT, OUTPUT_ACCOUNT_COMMAND, passwdEntry } from "../../lib/output_account.ts";

/** The system user the browser runs as when the player runs as root. */
export const BROWSER_USER = OUTPUT_ACCOUNT;

/** Who runs the browser: the player's own account, another, or nobody (refused, and why). */
export type BrowserRunner =
  | { kind: "self" }
  | { kind: "user"; account: BrowserAccount }
  | { kind: "refused"; reason: string };

/** The account `name` in a passwd file's text, or null. */
export function accountIn(passwd: string, name: string): BrowserAccount | null {
  const [, , uid, gid] = passwdEntry(passwd, name) ?? [];
  if (uid === undefined || gid === undefined) return null;
  const account = { name, uid: Number(uid), gid: Number(gid) };
  return Number.isInteger(account.uid) && Number.isInteger(account.gid) ? account : null;
}

/** Who runs the browser, for a player that runs as root (`isRoot`) or not. */
export function browserRunner(
  isRoot: boolean,
  readPasswd: () => string = () => Deno.readTextFileSync("/etc/passwd"),
): BrowserRunner {
  if (!isRoot) return { kind: "self" };
  let passwd = "";
  try {
    passwd = readPasswd();
  } catch {
    // no passwd file: no such user
  }
  const account = accountIn(passwd, BROWSER_USER);
  if (account && account.uid !== 0) return { kind: "user", account };
  return {
    kind: "refused",
    reason: `Cueport runs as root and the user ${BROWSER_USER} the browser runs as does not ` +
      `exist: create it (${OUTPUT_ACCOUNT_COMMAND.join(" ")}), or run Cueport as another user`,
  };
}
