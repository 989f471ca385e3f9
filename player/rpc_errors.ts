/**
 * What a thrown value says on the wire: the error object of a response (`rpc_server.ts`) or of
 * one refused action of a batch (`rpc_batch.ts`).
 * @module
 */
import { RpcError, RpcErrorCode, type RpcErrorObject } from "../protocol/jsonrpc.ts";
import { Refusal } from "./errors.ts";
import { diskFullMessage, isDiskFull } from "../lib/disk_full.ts";

/** A thrown value as an answer's error; a full disk, whatever wrote, is DISK_FULL. */
export function toErrorObject(error: unknown, dataDir: string): RpcErrorObject {
  if (error instanceof RpcError) return error.toObject();
  if (isDiskFull(error)) return { code: RpcErrorCode.DISK_FULL, message: diskFullMessage(dataDir) };
  if (error instanceof Refusal) {
    const { code, message, data } = error;
    return data === undefined ? { code, message } : { code, message, data };
  }
  return {
    code: RpcErrorCode.INTERNAL_ERROR,
    message: `Player error: ${(error as Error).message}`,
  };
}
