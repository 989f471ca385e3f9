/** HTTP requests from 127.0.0.2: a remote device, as far as the service can tell. */
import http from "node:http";

/** An answer with its JSON body. */
export interface RemoteAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** Sends a request from `localAddress` (default 127.0.0.2). */
export function remoteRequest(
  port: number,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<RemoteAnswer> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = http.request({
      host: "127.0.0.1",
      port,
      method,
      path,
      localAddress: options.localAddress ?? "127.0.0.2",
      headers: { ...(payload ? { "content-type": "application/json" } : {}), ...options.headers },
    }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on(
        "end",
        () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text ? JSON.parse(text) : null,
          }),
      );
    });
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}
