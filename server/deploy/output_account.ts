/**
 * The install makes the output browser's system user (`lib/output_account.ts`)
 * on Linux when it runs as root: a player that runs as root starts its
 * browser as that user, never as root (`player/output/browser_user.ts`).
 * @module
 */
import { hasOutputAccount, OUTPUT_ACCOUNT_COMMAND } from "../../lib/output_account.ts";

/** The command that makes the account, or null when it is there already. */
export function outputAccountCommand(
  readPasswd: () => string = () => Deno.readTextFileSync("/etc/passwd"),
): string[] | null {
  try {
    if (hasOutputAccount(readPasswd())) return null;
  } catch {
    // no passwd file to read: try to make it
  }
  return [...OUTPUT_ACCOUNT_COMMAND];
}

/** Makes the account when it is missing; the reason when that failed, else null. */
export async function ensureOutputAccount(): Promise<string | null> {
  const command = outputAccountCommand();
  if (!command) return null;
  const [program, ...args] = command;
  try {
    const out = await new Deno.Command(program!, { args, stdout: "null", stderr: "piped" })
      .output();
    if (out.success) return null;
    return `${command.join(" ")} failed: ${new TextDecoder().decode(out.stderr).trim()}`;
  } catch (error) {
    return `${command.join(" ")} failed: ${error}`;
  }
}
