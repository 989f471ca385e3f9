/**
 * The system user the output's browser runs as when Cueport runs as root:
 * the player starts it so (`player/output/browser_user.ts`), the install makes
 * it (`server/deploy/output_account.ts`, the tests' peer step). One name for
 * both sides, so the two cannot drift.
 * @module
 */

/** The name of the browser's system user. */
export const OUTPUT_ACCOUNT = "cueport-output";

/** The command that makes it: a system user with no home, no shell, no password. */
export const OUTPUT_ACCOUNT_COMMAND: readonly string[] = [
  "useradd",
  "--system",
  "--no-create-home",
  "--home-dir",
  "/nonexistent",
  "--shell",
  "/usr/sbin/nologin",
  OUTPUT_ACCOUNT,
];

/** The fields of the line of the passwd file's text that names the user `name`, or null. */
export function passwdEntry(passwd: string, name: string): string[] | null {
  for (const line of passwd.split("\n")) {
    const fields = line.split(":");
    if (fields[0] === name && fields.length > 1) return fields;
  }
  return null;
}

/** Whether the passwd file's text names the account. */
export function hasOutputAccount(passwd: string): boolean {
  return passwdEntry(passwd, OUTPUT_ACCOUNT) !== null;
}
