/**
 * The service log: one line per event on stderr (stdout carries only the
 * ready line), filtered by level.
 * @module
 */

/** Log levels, least severe first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A logging function. */
export type Logger = (level: LogLevel, message: string) => void;

/** A logger that writes `time level message` lines to stderr at or above `min`. */
export function createLogger(min: LogLevel): Logger {
  const encoder = new TextEncoder();
  return (level, message) => {
    if (RANK[level] < RANK[min]) return;
    const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${message}\n`;
    try {
      Deno.stderr.writeSync(encoder.encode(line));
    } catch {
      // stderr closed: nothing to do
    }
  };
}
