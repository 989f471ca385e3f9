/**
 * A device paired from 127.0.0.2 (a remote client to the service) with the
 * `view`, `control` and `edit` scopes, as a crew laptop would be: the output
 * probes send their shaders and Effects through it, never from 127.0.0.1.
 * @module
 */
import http from "node:http";
import { pairRemote } from "./_media_clients.ts";

/** An answer: the status (null when none came) and the JSON body (null when none). */
export interface JsonAnswer {
  status: number | null;
  body: Record<string, unknown> | null;
}

const ANSWER_WITHIN_MS = 60_000;

/** A paired remote device. */
export class RemoteDevice {
  #port: number;
  #auth: Record<string, string>;

  private constructor(port: number, auth: Record<string, string>) {
    this.#port = port;
    this.#auth = auth;
  }

  /** Pairs a device from 127.0.0.2 on the service at `port`. */
  static async pair(port: number): Promise<RemoteDevice> {
    return new RemoteDevice(port, await pairRemote(port, ["view", "control", "edit"]));
  }

  /** `POST /api/v1/edit` of one edit. */
  edit(name: string, params: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
    return this.request("POST", "/api/v1/edit", { name, params }, headers);
  }

  /** The id an edit's answer says it created (`created.<field>`), or null. */
  static created(answer: JsonAnswer, field: string): string | null {
    const edits = answer.body?.edits as { created?: Record<string, unknown> }[] | undefined;
    const id = edits?.[0]?.created?.[field];
    return typeof id === "string" ? id : null;
  }

  /** One JSON request from 127.0.0.2 with the device's token; never throws. */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonAnswer> {
    return new Promise((resolve) => {
      const req = http.request({
        host: "127.0.0.1",
        port: this.#port,
        method,
        path,
        localAddress: "127.0.0.2",
        headers: {
          "content-type": "application/json",
          connection: "close",
          ...this.#auth,
          ...headers,
        },
        agent: false,
      }, (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("error", () => resolve({ status: res.statusCode ?? null, body: null }));
        res.on("end", () => {
          let parsed: Record<string, unknown> | null = null;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = null;
          }
          resolve({ status: res.statusCode ?? null, body: parsed });
        });
      });
      req.setTimeout(ANSWER_WITHIN_MS, () => req.destroy());
      req.on("error", () => resolve({ status: null, body: null }));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }
}

/** `status CODE: message` of an answer, for notes. */
export function answerWords(answer: JsonAnswer): string {
  const error = answer.body?.error as { code?: string; message?: string } | undefined;
  if (error) return `${answer.status} ${error.code}: ${String(error.message).slice(0, 160)}`;
  return `${answer.status ?? "no answer"}`;
}
