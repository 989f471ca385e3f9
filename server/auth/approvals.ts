/**
 * Approval of local WebSocket clients that connect without credentials: the
 * player (the application) is asked; `wait` leaves the decision to the
 * operator through the local-only API (`cueport approve`), for 2 minutes.
 * @module
 */
import type { ApprovalRequestParams, ApprovalRequestResult } from "../../protocol/methods.ts";
import { CueportError } from "../core/errors.ts";

/** Asks the player; the service passes the supervisor's request here. */
export type AskPlayer = (request: ApprovalRequestParams) => Promise<ApprovalRequestResult>;

/** A request waiting for the operator. */
export interface PendingApproval extends ApprovalRequestParams {
  requestedAt: string;
}

/** Pending and decided approvals. */
export class Approvals {
  #ask: AskPlayer;
  #pending = new Map<string, PendingApproval & { decide: (ok: boolean) => void }>();
  #waitMs: number;

  /** `waitMs` is how long a `wait` decision may take (default 2 minutes). */
  constructor(ask: AskPlayer, options: { waitMs?: number } = {}) {
    this.#ask = ask;
    this.#waitMs = options.waitMs ?? 120_000;
  }

  /** Requests waiting for the operator. */
  pending(): PendingApproval[] {
    return [...this.#pending.values()].map(({ decide: _d, ...p }) => p);
  }

  /** Resolves true when approved. */
  async request(address: string, deviceName: string): Promise<boolean> {
    const requestId = `ap-${crypto.randomUUID().slice(0, 8)}`;
    const { decision } = await this.#ask({ requestId, address, deviceName });
    if (decision !== "wait") return decision === "approve";
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), this.#waitMs);
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.#pending.delete(requestId);
        resolve(ok);
      };
      this.#pending.set(requestId, {
        requestId,
        address,
        deviceName,
        requestedAt: new Date().toISOString(),
        decide: finish,
      });
    });
  }

  /** The operator's decision. */
  decide(requestId: string, approve: boolean): void {
    const pending = this.#pending.get(requestId);
    if (!pending) {
      throw new CueportError("NOT_FOUND", `No approval request "${requestId}" is waiting`);
    }
    pending.decide(approve);
  }
}
