/**
 * The words of a command line refused by `node:util`'s `parseArgs`, as an operator command
 * prints them: its first sentence. With positionals allowed, Node adds advice on passing a
 * positional that starts with `-` (`-- "--data-dir"`, its quotes unbalanced), which fits none of
 * Cueport's commands.
 * @module
 */

/** The refusal's message without Node's advice on positionals. */
export function argsMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\. To specify a positional argument starting with a '-'.*$/s, "");
}
