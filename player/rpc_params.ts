/**
 * The params of every player method, declared once as zod schemas: each
 * handler parses its params first, so null params, a field of the wrong type
 * or a missing field is answered -32602 with a message naming the field,
 * never -32603. Unknown fields are ignored (a minor protocol version may add
 * some); the params of an action and of each edit are then checked against
 * their catalogs (`protocol/actions.ts`, `protocol/edits/`).
 * @module
 */
import { z } from "zod";
import { MAX_BATCH_EDITS } from "../protocol/edits/mod.ts";
import { RpcError, RpcErrorCode } from "../protocol/jsonrpc.ts";
import { Method } from "../protocol/methods.ts";

/** A method without params: params absent, or an object whose fields are ignored. */
const NoParams = z.object({}).optional();

/** A Project id as the service sends it: null means the active Project. */
const ProjectId = z.string().min(1).nullable().optional();

/** The params schema of each method, by method name. */
export const METHOD_PARAMS = {
  [Method.INITIALIZE]: z.object({
    protocolVersion: z.string(),
    client: z.object({ name: z.string(), version: z.string() }).optional(),
  }),
  [Method.STATE_GET]: NoParams,
  [Method.ACTION_RUN]: z.object({
    name: z.string(),
    // An object here; its fields are checked against the action's catalog entry.
    params: z.looseObject({}).optional(),
    projectId: ProjectId,
    velocity: z.number().int().min(0).max(127).optional(),
    idempotencyKey: z.string().max(512).optional(),
  }),
  [Method.EDIT_APPLY]: z.object({
    projectId: ProjectId,
    // Each edit's params are checked against the edit catalog (`edits/parse.ts`).
    edits: z.array(z.object({ name: z.string(), params: z.unknown() }))
      .min(1).max(MAX_BATCH_EDITS),
    isUpload: z.boolean().optional(),
    idempotencyKey: z.string().max(512).optional(),
  }),
  [Method.PROJECTS_RELOAD]: NoParams,
  [Method.CLOCK_ADVANCE]: z.object({ ms: z.number().min(0) }),
  [Method.SHUTDOWN]: NoParams,
  [Method.APPROVAL_REQUEST]: z.object({
    requestId: z.string(),
    address: z.string(),
    deviceName: z.string(),
  }),
  [Method.PAIRING_SHOW]: z.object({ otp: z.string(), expiresAt: z.string() }),
  [Method.MEDIA_LOCATE]: z.object({ projectId: ProjectId, fileId: z.string().min(1) }),
  [Method.CAMERA_FRAME]: z.object({ cameraId: z.string().min(1) }),
  [Method.OUTPUT_FRAME]: NoParams,
} satisfies Record<(typeof Method)[keyof typeof Method], z.ZodType>;

/** A method of the protocol. */
export type MethodName = keyof typeof METHOD_PARAMS;

/** The params of `method` once parsed. */
export type ParsedParams<M extends MethodName> = z.output<(typeof METHOD_PARAMS)[M]>;

/**
 * Parses a request's params with its method's schema.
 * @throws {RpcError} INVALID_PARAMS naming the first bad field, e.g.
 * `Invalid params for action.run: params.name: Invalid input: expected string, received number`
 */
export function parseParams<M extends MethodName>(method: M, params: unknown): ParsedParams<M> {
  const parsed = METHOD_PARAMS[method].safeParse(params);
  if (parsed.success) return parsed.data as ParsedParams<M>;
  const issue = parsed.error.issues[0]!;
  const field = ["params", ...issue.path.map(String)].join(".");
  throw new RpcError(
    RpcErrorCode.INVALID_PARAMS,
    `Invalid params for ${method}: ${field}: ${issue.message}`,
  );
}
