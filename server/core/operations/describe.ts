/**
 * The operations that describe an interface: its info (the endpoint map)
 * and its OpenAPI document on the 6.0 port, and the 5.0.0 port's info.
 * Each transport knows its own routes, so it gives the description as
 * `ctx.describe`; declaring them here puts them under the one policy and
 * names the transports that carry them, like every other operation.
 * @module
 */
import { z } from "zod";
import {
  type AnyOperation,
  defineOperation,
  given,
  type OperationContext,
  type Transport,
} from "./operation.ts";

/** A description as the transport builds it (its exact schema is its route's `response`). */
const Description = z.looseObject({}).describe("What the interface says of itself");

const describe = (ctx: OperationContext) => given(ctx.describe, "description of the interface")();

/**
 * A describing operation: what it is called, says and where it travels (a
 * 6.0 transport: new in 6.0); the route says the rest.
 */
function describing(name: string, summary: string, transport: Transport): AnyOperation {
  return defineOperation({
    name,
    summary,
    tag: "service",
    kind: "service",
    transports: [transport],
    ...(transport.endsWith("-5.0.0") ? {} : { since: "6.0" as const }),
    input: z.strictObject({}),
    output: Description,
    run: describe,
  });
}

/** Every describing operation. */
export const DESCRIBE_OPERATIONS: readonly AnyOperation[] = [
  describing("info", "API version, app version, ports and the map of every endpoint", "http"),
  describing("openapi", "This API as an OpenAPI 3.1 document", "http"),
  describing(
    "v5Info",
    "API version 5.0.0, app version, ports, deprecation and the map of every endpoint",
    "http-5.0.0",
  ),
];
