/**
 * The service's check of what the player answers, with the schemas of the
 * protocol (`protocol/methods.ts`): the results of the methods marked
 * `checked` (small answers of rare calls) and the small notifications. The
 * snapshot, the answers of actions and edits and the state updates are read
 * as they come: they are large or on the hot path, and the read model and
 * `tests/server/answers_test.ts` check what reaches clients.
 * @module
 */
import type { z } from "zod";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import {
  type MethodName,
  type MethodResult,
  METHODS,
  parseOrRefuse,
} from "../../protocol/methods.ts";

/**
 * The result of `method` checked by its schema (unknown fields dropped).
 * @throws {RpcError} INTERNAL_ERROR naming the first bad field, e.g.
 * `Invalid result of media.locate: result.path: Invalid input: expected string, received undefined`
 */
export function checkedResult<M extends MethodName>(method: M, value: unknown): MethodResult<M> {
  return parseOrRefuse(METHODS[method].result, value, {
    code: RpcErrorCode.INTERNAL_ERROR,
    what: `result of ${method}`,
    root: "result",
  }) as MethodResult<M>;
}

/** `value` parsed by `schema`, or undefined when it does not fit (a notification to drop). */
export function notificationOf<T>(schema: z.ZodType<T>, value: unknown): T | undefined {
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
}
