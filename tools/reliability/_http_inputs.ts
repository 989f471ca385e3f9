/**
 * Fuzzed HTTP inputs: well-formed requests on the real routes (random
 * methods, path params, queries, headers, mutated bodies) and malformed
 * HTTP/1.1 as raw bytes.
 * @module
 */
import { validBody } from "./_corpus.ts";
import { interestingValue, isSafeInput, mutateText, mutateValue } from "./_mutate.ts";
import type { Rng } from "./_prng.ts";

const encoder = new TextEncoder();

/** A route of `GET /api/v1/info`. */
export interface Route {
  method: string;
  path: string;
}

/** A well-formed request, sent with `fetch` (local) or over raw TCP (remote). */
export interface HttpRequestInput {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | null;
  /** The route pattern or "unknown", for grouping answers. */
  where: string;
}

const METHODS = ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD", "FOO", "get"];

const PARAM_VALUES = [
  "demo",
  "song-opening",
  "clip-aurora",
  "effect",
  "visualizer",
  "fx-blur",
  "song.add",
  "dev-000000000000",
  "ap-00000000",
  "%ff%fe",
  "%00",
  "..%2f..%2fetc",
  "%E2%80%AE",
  "%F0%9F%98%80",
  "__proto__",
  "constructor",
  "",
  "%20",
];

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  "multipart/form-data; boundary=x",
  'multipart/form-data; boundary="a b"',
  "application/octet-stream",
  "*/*",
];

function pathFor(route: Route, rng: Rng): string {
  let path = route.path.replace(/:[A-Za-z]+/g, () => {
    if (rng.chance(0.6)) return rng.pick(PARAM_VALUES);
    return rng.chance(0.9) ? rng.string(rng.size(200)) : "x".repeat(rng.range(5000, 60_000));
  });
  if (rng.chance(0.1)) path += "/";
  if (rng.chance(0.2)) {
    const q = rng.pick([
      "ids=clip-aurora,clip-rings",
      `ids=${Array.from({ length: rng.range(1, 5000) }, () => "clip-aurora").join(",")}`,
      "ids=",
      "token=abc",
      `name=${rng.pick(PARAM_VALUES)}`,
      `projectID=${rng.pick(PARAM_VALUES)}`,
      "a=1&a=2&a[]=3",
      "%zz",
    ]);
    path += `?${q}`;
  }
  return path;
}

function headersFor(rng: Rng): Record<string, string> {
  const headers: Record<string, string> = {};
  if (rng.chance(0.6)) headers["content-type"] = rng.pick(CONTENT_TYPES);
  if (rng.chance(0.2)) {
    headers.authorization = rng.pick([
      "Bearer ",
      "Bearer e30.e30.",
      "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
      `Bearer ${rng.string(rng.size(4000))}`,
      "Basic YTpi",
    ]);
  }
  if (rng.chance(0.1)) {
    headers.origin = rng.pick(["http://evil.example", "null", "http://localhost"]);
  }
  if (rng.chance(0.1)) headers["x-forwarded-for"] = "127.0.0.1";
  if (rng.chance(0.05)) headers["content-encoding"] = rng.pick(["gzip", "br", "identity"]);
  if (rng.chance(0.1)) headers[`x-${rng.string(6)}`] = rng.string(rng.size(8000));
  return headers;
}

function bodyFor(route: Route, rng: Rng): Uint8Array<ArrayBuffer> {
  const valid = validBody(route.path, rng);
  const r = rng.next();
  if (r < 0.2) return encoder.encode(JSON.stringify(valid));
  if (r < 0.6) return encoder.encode(JSON.stringify(mutateValue(valid, rng)));
  if (r < 0.95) return mutateText(JSON.stringify(valid), rng);
  return encoder.encode(JSON.stringify(interestingValue(rng)));
}

/** A fuzzed well-formed request; null when it would be unsafe to send (see `isSafeInput`). */
export function fuzzRequest(routes: readonly Route[], rng: Rng): HttpRequestInput | null {
  const route = rng.chance(0.95) ? rng.pick(routes) : { method: "GET", path: `/${rng.string(8)}` };
  const method = rng.chance(0.8) ? route.method : rng.pick(METHODS);
  const hasBody = method !== "GET" && method !== "HEAD" && method !== "get";
  const input = {
    method,
    path: pathFor(route, rng),
    headers: headersFor(rng),
    body: hasBody && rng.chance(0.9) ? bodyFor(route, rng) : null,
    where: `${method} ${route.path}`,
  };
  return isSafeInput(input.path) && (!input.body || isSafeInput(input.body)) ? input : null;
}

/** A request as raw HTTP/1.1 bytes, `Connection: close`. */
export function requestBytes(input: HttpRequestInput, host: string): Uint8Array {
  const head = `${input.method} ${input.path} HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n` +
    Object.entries(input.headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") +
    (input.body ? `content-length: ${input.body.length}\r\n` : "") + "\r\n";
  const bytes = encoder.encode(head);
  if (!input.body) return bytes;
  const out = new Uint8Array(bytes.length + input.body.length);
  out.set(bytes);
  out.set(input.body, bytes.length);
  return out;
}

/** A short description of a request for the notes: method, path, the body's start. */
export function describeRequest(input: HttpRequestInput): string {
  const body = input.body ? new TextDecoder().decode(input.body.subarray(0, 100)) : "";
  return `${input.method} ${input.path.slice(0, 80)} ${
    JSON.stringify(input.headers).slice(0, 80)
  } ${body}`;
}
