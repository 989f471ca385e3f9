/**
 * The JSON gateway's encoding (etcd's protobuf messages as JSON): keys and
 * values in base64, 64-bit numbers as strings, fields at their default left out.
 * @module
 */
import type { Compare, Kv, Txn, TxnOp } from "./etcd.ts";

/** A key-value as the gateway sends it. */
export interface WireKv {
  key: string;
  value?: string;
  create_revision?: string;
  mod_revision?: string;
  lease?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 text as base64. */
export function toBase64(text: string): string {
  return bytesToBase64(encoder.encode(text));
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** base64 as UTF-8 text. */
export function fromBase64(base64: string): string {
  return decoder.decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
}

/** The `range_end` (base64) that makes a range of every key starting with `prefix`. */
export function prefixEnd(prefix: string): string {
  const bytes = encoder.encode(prefix);
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i]! < 0xff) {
      const end = bytes.slice(0, i + 1);
      end[i]! += 1;
      return bytesToBase64(end);
    }
  }
  return toBase64("\0"); // every key
}

/** A gateway key-value as a `Kv`. */
export function wireKv(kv: WireKv): Kv {
  return {
    key: fromBase64(kv.key),
    value: kv.value ? fromBase64(kv.value) : "",
    createRevision: Number(kv.create_revision ?? 0),
    modRevision: Number(kv.mod_revision ?? 0),
    lease: kv.lease ?? "0",
  };
}

/** A txn as the gateway's `TxnRequest`. */
export function txnBody(txn: Txn): unknown {
  return {
    compare: txn.compare.map(compareBody),
    success: txn.success.map(opBody),
    failure: txn.failure.map(opBody),
  };
}

function compareBody(c: Compare): unknown {
  const base = { key: toBase64(c.key), target: c.target, result: c.result };
  switch (c.target) {
    case "CREATE":
      return { ...base, create_revision: String(c.createRevision) };
    case "MOD":
      return { ...base, mod_revision: String(c.modRevision) };
    case "VALUE":
      return { ...base, value: toBase64(c.value) };
    case "LEASE":
      return { ...base, lease: c.lease };
  }
}

function opBody(op: TxnOp): unknown {
  if ("put" in op) {
    const { key, value, lease } = op.put;
    return {
      request_put: { key: toBase64(key), value: toBase64(value), ...(lease ? { lease } : {}) },
    };
  }
  const { key, prefix } = "delete" in op ? op.delete : op.range;
  const body = { key: toBase64(key), ...(prefix ? { range_end: prefixEnd(key) } : {}) };
  return "delete" in op ? { request_delete_range: body } : { request_range: body };
}
