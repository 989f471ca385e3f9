/**
 * `/connect <otp> <deviceName> [scopes]`: an OSC device pairs with a code
 * from `cueport pair`, by the catalog's `pair` run through the one policy (the
 * plan, the code's limits, the device registry), and is then known by its
 * address (`senders.ts`).
 * @module
 */
import type { AuthService } from "../auth/service.ts";
import type { Scope } from "../auth/tokens.ts";
import {
  CueportError,
  operationNamed,
  type Policy,
  type WireField,
  withWireField,
} from "../core/mod.ts";
import { type OscValue, splitOptions } from "./coerce.ts";
import type { Outbox, Peer } from "./outbox.ts";
import type { Senders } from "./senders.ts";

/** What `/connect` runs: the catalog's pairing, as every transport runs it. */
export const PAIR = operationNamed("pair");

/** What pairing a sender needs of the server. */
export interface ConnectContext {
  auth: AuthService;
  policy: Policy;
  senders: Senders;
  outbox: Outbox;
  /** Where a sender that paired is told. */
  log?: ((message: string) => void) | undefined;
}

/**
 * Pairs the sender of `/connect` and answers it (at its port, or the one it
 * names with `reply=<port>`); a refusal names the argument the desk sent.
 */
export async function connect(values: OscValue[], peer: Peer, ctx: ConnectContext): Promise<void> {
  const { values: args, options } = splitOptions(values, new Set());
  const [otpValue, name, scopeText] = args;
  const otp = typeof otpValue === "number" ? String(otpValue).padStart(6, "0") : String(otpValue);
  const listed = typeof scopeText === "string"
    ? scopeText.split(",").map((s) => s.trim()).filter(Boolean) as Scope[]
    : [];
  const scopes = listed.length > 0 ? listed : ["view", "control"] as Scope[];
  // An answer and a refusal alike go where the desk asked (`oscsend` reads no reply of its own).
  const port = typeof options.reply === "number" ? options.reply : peer.port;
  try {
    if (scopes.some((s) => !["view", "control", "edit"].includes(s))) {
      throw new CueportError(
        "INVALID_MESSAGE",
        "Invalid args[2] (scopes): a comma-separated list of view, control, edit",
        { field: "args[2]" },
      );
    }
    const device = await ctx.senders.pair(
      otp,
      peer.address,
      typeof name === "string" && name.trim() ? name : `OSC ${peer.address}`,
      scopes,
      // The catalog's `pair` through the one path: the plan, the code's limits, the registry.
      (input) =>
        ctx.policy.invoke(PAIR, { address: peer.address, isLocal: peer.isLocal }, input, {
          where: "/connect",
          context: { auth: ctx.auth, pairing: "osc" },
        }) as Promise<{ deviceId: string; scopes: Scope[] }>,
    );
    ctx.outbox.reply(peer, port, "/connect", { data: { ok: true, ...device } });
    ctx.log?.(`OSC sender ${peer.address} paired as ${device.deviceId}`);
  } catch (error) {
    ctx.outbox.refuse(peer, "/connect", withWireField(error, connectArg), port);
  }
}

/** `/connect`'s arguments as `pair` names them: a refusal names the argument the desk sent. */
const CONNECT_ARGS: Record<string, string> = {
  otp: "args[0]",
  deviceName: "args[1]",
  scopes: "args[2]",
};

/** A field of `pair` as `/connect` names it: the argument the desk sent (`args[0] (otp)`). */
function connectArg(field: string): WireField | undefined {
  const top = field.split(/[.[]/)[0] ?? "";
  const arg = CONNECT_ARGS[top];
  return arg ? { field: arg, label: `${arg} (${top})` } : undefined;
}
