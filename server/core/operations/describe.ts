/**
 * The operations that describe an interface: its info (the endpoint map)
 * and its OpenAPI document on the 6.0 port, and the 5.0.0 port's info.
 * Each transport knows its own routes, so it gives the description as
 * `ctx.describe`; declaring them here puts them under the one policy and
 * names the transports that carry them, like every other operation.
 * @module
 */
import { z } from "zod";
import { type AnyOperation, defineOperation, given, type OperationContext } from "./operation.ts";

/** A description as the transport builds it (its exact schema is its route's `response`). */
const Description = z.looseObject({}).describe("What the interface says of itself");

const describe = (ctx: OperationContext) => given(ctx.describe, "description of the interface")();

/** Every describing operation. */
export const DESCRIBE_OPERATIONS: readonly AnyOperation[] = [
  defineOperation({
    name: "info",
    summary: "API version, app version, ports and the map of every endpoint",
    tag: "service",
    kind: "service",
    transports: ["http"],
    input: z.strictObject({}),
    output: Description,
    run: describe,
  }),
  defineOperation({
    name: "openapi",
    summary: "This API as an OpenAPI 3.1 document",
    tag: "service",
    kind: "service",
    transports: ["http"],
    input: z.strictObject({}),
    output: Description,
    run: describe,
  }),
  defineOperation({
    name: "v5Info",
    summary: "API version 5.0.0, app version, ports, deprecation and the map of every endpoint",
    tag: "service",
    kind: "service",
    transports: ["http-5.0.0"],
    input: z.strictObject({}),
    output: Description,
    run: describe,
  }),
];
