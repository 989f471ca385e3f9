/**
 * The security operations: pairing a device, the device list, revocation,
 * key rotation and the approvals of local clients. All but pairing itself
 * are for clients on this machine only.
 * @module
 */
import { z } from "zod";
import { CueportError } from "../errors.ts";
import {
  type AnyOperation,
  defineOperation,
  given,
  type OperationContext,
  SCOPES,
} from "./operation.ts";

const authOf = (ctx: OperationContext) => given(ctx.auth, "auth service");

const Scope = z.enum(SCOPES);

const DeviceView = z.strictObject({
  deviceId: z.string(),
  name: z.string(),
  scopes: z.array(Scope),
  pairedAt: z.string(),
  address: z.string(),
  origin: z.enum(["pairing", "approval", "osc", "midi"]).optional().describe(
    "How it got its token: a one-time code, the approval of a local client, OSC /connect (bound to its address), or an approved MIDI participant (bound to its address, no token)",
  ),
  lastUsedAt: z.string().optional().describe("When its token was last accepted"),
  pairedOn: z.string().optional().describe(
    "In a rig group: the rig that paired it (every rig of the group accepts it, docs/rigs.md)",
  ),
});

const ApprovalView = z.strictObject({
  requestId: z.string(),
  address: z.string(),
  deviceName: z.string(),
  requestedAt: z.string(),
});

const CODE_ERROR = { error: "must be the 6-digit code" };

/** Every security operation. */
export const SECURITY_OPERATIONS: readonly AnyOperation[] = [
  defineOperation({
    name: "pairCode",
    since: "6.0",
    summary: "Issue a one-time pairing code, valid 5 minutes (local clients only)",
    tag: "security",
    kind: "security",
    scope: "control",
    isLocalOnly: true,
    input: z.strictObject({}),
    output: z.strictObject({ otp: z.string(), expiresAt: z.string() }),
    run: (ctx) => {
      const { otp, expiresAt } = authOf(ctx).codes.issue();
      return { otp, expiresAt: new Date(expiresAt).toISOString() };
    },
  }),
  defineOperation({
    name: "pair",
    summary: "Exchange a one-time code for a device token (JWT)",
    tag: "security",
    kind: "security",
    scope: null,
    input: z.object({
      otp: z.string(CODE_ERROR).regex(/^\d{6}$/, CODE_ERROR),
      deviceName: z.string().max(100).optional().describe(
        "A name for the device, shown in the device list",
      ),
      scopes: z.array(Scope).min(1).optional().describe(
        "What the device may do; default all three",
      ),
    }),
    output: z.strictObject({
      token: z.string(),
      deviceId: z.string(),
      scopes: z.array(Scope),
      expiresAt: z.string(),
    }),
    run: (ctx, input) =>
      authOf(ctx).authenticator.pair(
        input.otp,
        ctx.address,
        input.deviceName ?? "",
        input.scopes,
        ctx.pairing ?? "pairing",
        ctx.tokenLifetimeSeconds,
      ),
  }),
  defineOperation({
    name: "devices",
    since: "6.0",
    summary: "Paired devices (local clients only)",
    tag: "security",
    kind: "security",
    isLocalOnly: true,
    input: z.strictObject({}),
    output: z.strictObject({ devices: z.array(DeviceView) }),
    run: (ctx) => ({
      devices: authOf(ctx).devices.list().map(({ tokenId: _t, tokenHash: _h, ...d }) => d),
    }),
  }),
  defineOperation({
    name: "revokeDevice",
    since: "6.0",
    summary:
      "Revoke a device: its token stops working at once and its sockets close (local clients only)",
    tag: "security",
    kind: "security",
    scope: "control",
    isLocalOnly: true,
    input: z.strictObject({ deviceId: z.string() }),
    output: z.strictObject({ ok: z.literal(true), deviceId: z.string() }),
    run: async (ctx, { deviceId }) => {
      if (!(await authOf(ctx).devices.revoke(deviceId))) {
        throw new CueportError("NOT_FOUND", `Device "${deviceId}" is not paired`);
      }
      return { ok: true, deviceId };
    },
  }),
  defineOperation({
    name: "rotateKey",
    since: "6.0",
    summary: "Rotate the signing key: every device token is revoked at once (local clients only)",
    tag: "security",
    kind: "security",
    scope: "control",
    isLocalOnly: true,
    input: z.strictObject({}),
    output: z.strictObject({ ok: z.literal(true), revoked: z.number().int() }),
    run: async (ctx) => {
      const revoked = authOf(ctx).devices.list().length;
      await authOf(ctx).rotateKey();
      return { ok: true, revoked };
    },
  }),
  defineOperation({
    name: "approvals",
    since: "6.0",
    summary: "Local WebSocket clients waiting for the operator's approval (local clients only)",
    tag: "security",
    kind: "security",
    isLocalOnly: true,
    input: z.strictObject({}),
    output: z.strictObject({ approvals: z.array(ApprovalView) }),
    run: (ctx) => ({ approvals: authOf(ctx).approvals.pending() }),
  }),
  defineOperation({
    name: "decideApproval",
    since: "6.0",
    summary: "Approve or deny a waiting client (local clients only)",
    tag: "security",
    kind: "security",
    scope: "control",
    isLocalOnly: true,
    input: z.object({
      requestId: z.string(),
      approve: z.boolean({ error: "must be true or false" }),
    }),
    output: z.strictObject({ ok: z.literal(true), requestId: z.string(), approved: z.boolean() }),
    run: (ctx, { requestId, approve }) => {
      authOf(ctx).approvals.decide(requestId, approve);
      return { ok: true, requestId, approved: approve };
    },
  }),
];
