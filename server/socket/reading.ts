/**
 * Reading one WebSocket message: from the frame's data to a checked
 * `ClientMessage` of the engine (through the connection's dialect), or to
 * the answer that refuses it. `SocketClient` runs what it gives.
 * @module
 */
import { CueportError, inputError } from "../core/mod.ts";
import type { WsDialect } from "../net/dialect.ts";
import { type ClientMessage, MESSAGE_SCHEMAS, type MessageId } from "./messages.ts";

/** Message types a client may send, checked once per message without allocating. */
const TYPES: ReadonlySet<string> = new Set(Object.keys(MESSAGE_SCHEMAS));
const TYPE_LIST = [...TYPES].join(", ");

/** A message read: the message to run with its id, or the answer that refuses it. */
export type ReadMessage = { id: MessageId; message: ClientMessage } | { refusal: string };

/** What reading a message needs of its connection. */
export interface ReadOptions {
  dialect: WsDialect;
  maxMessageBytes: number;
  /** The refusal when the connection's address is over its budget, else null (taken once). */
  rateRefusal: () => CueportError | null;
}

/**
 * Reads one message of `bytes` bytes, in this order: a text frame, its size,
 * JSON, the id (the dialect's), the address's rate budget, an object, the
 * dialect's decoding, a known type, the type's schema.
 */
export function readMessage(data: unknown, bytes: number, options: ReadOptions): ReadMessage {
  const { dialect } = options;
  const refuse = (id: MessageId, message: string) => ({
    refusal: dialect.error(id, new CueportError("INVALID_MESSAGE", message)),
  });
  if (typeof data !== "string") {
    return refuse(undefined, "Binary frames are not supported: send JSON text");
  }
  if (bytes > options.maxMessageBytes) {
    return refuse(undefined, `Message too large: over ${options.maxMessageBytes} bytes`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return refuse(undefined, "Invalid JSON: the message must be a JSON object");
  }
  const isObject = typeof raw === "object" && raw !== null && !Array.isArray(raw);
  // The dialect reads the id (only of the documented kinds) and turns its message into the
  // engine's; a 6.0 message is taken as it is.
  const decoded = isObject ? dialect.decode(raw as Record<string, unknown>) : null;
  const id: MessageId = decoded?.id;
  const rawType = isObject ? (raw as { type?: unknown }).type : undefined;
  const overBudget = options.rateRefusal();
  if (overBudget) return { refusal: dialect.error(id, overBudget) };
  if (!decoded) return refuse(id, "The message must be a JSON object");
  if ("error" in decoded) {
    const asType = typeof rawType === "string" ? rawType : undefined;
    return { refusal: dialect.error(id, decoded.error, asType) };
  }
  const type = decoded.message.type;
  if (typeof type !== "string" || !TYPES.has(type)) {
    const what = type === undefined ? "Missing type" : `Unknown type ${JSON.stringify(type)}`;
    return refuse(id, `${what}: use ${TYPE_LIST}`);
  }
  const schema = MESSAGE_SCHEMAS[type as ClientMessage["type"]];
  const parsed = schema.safeParse(decoded.message);
  if (!parsed.success) {
    const what = `the ${type} message`;
    return {
      refusal: dialect.error(id, inputError(schema, parsed.error, { whole: "message", what })),
    };
  }
  return { id, message: parsed.data };
}
