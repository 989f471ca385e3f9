/**
 * The service log: one line per event on stderr (stdout carries only the
 * ready line), filtered by level, as text or as one JSON object a line.
 * @module
 */

/** Log levels, least severe first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** How a log line is written: `time LEVEL message`, or one JSON object. */
export type LogFormat = "text" | "json";

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A logging function. */
export type Logger = (level: LogLevel, message: string) => void;

/** One log line, with its newline. */
export function formatLogLine(
  format: LogFormat,
  time: Date,
  level: LogLevel,
  message: string,
): string {
  return format === "json"
    ? JSON.stringify({ time: time.toISOString(), level, message }) + "\n"
    : `${time.toISOString()} ${level.toUpperCase().padEnd(5)} ${message}\n`;
}

/** A logger that writes lines to stderr at or above `min`, in `format`. */
export function createLogger(min: LogLevel, format: LogFormat = "text"): Logger {
  const encoder = new TextEncoder();
  return (level, message) => {
    if (RANK[level] < RANK[min]) return;
    try {
      Deno.stderr.writeSync(encoder.encode(formatLogLine(format, new Date(), level, message)));
    } catch {
      // stderr closed: nothing to do
    }
  };
}
