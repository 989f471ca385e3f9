/**
 * The operations of a session, declared in the catalog like any other: they
 * describe or steer the connection they run on (a WebSocket's `connect`,
 * `subscribe`, `full` and `ping`; OSC's `/subscribe`), so the transport
 * gives them that connection (`ctx.session`, `ctx.oscFeedback`). Declaring them here puts them under the one
 * policy (`Policy.invoke`): the plan, the scope, local-only.
 * @module
 */
import { z } from "zod";
import { ConnectInput, SubscribedView, SubscribeInput } from "./session_service.ts";
import { type AnyOperation, defineOperation, given, type OperationContext } from "./operation.ts";

const sessionOf = (ctx: OperationContext) => given(ctx.session, "session");

/** Every session operation. */
export const SESSION_OPERATIONS: readonly AnyOperation[] = [
  defineOperation({
    name: "connect",
    summary: "Authenticate a connection: a token, a one-time code, or a local client's approval",
    tag: "security",
    kind: "session",
    scope: null,
    input: ConnectInput,
    output: z.strictObject({ authenticated: z.literal(true), token: z.string().optional() }),
    run: (ctx, input) => sessionOf(ctx).connect(input),
  }),
  defineOperation({
    name: "subscribe",
    since: "6.0",
    summary: "Choose the state updates this connection receives",
    tag: "playback",
    kind: "session",
    // It only narrows what the connection is sent, so it needs no scope of its own.
    scope: null,
    input: SubscribeInput,
    output: SubscribedView,
    run: (ctx, input) => sessionOf(ctx).subscribe(input),
  }),
  defineOperation({
    name: "oscSubscribe",
    since: "6.0",
    summary: "Lease this OSC sender the state's changes as typed OSC messages (`/subscribe`)",
    tag: "playback",
    kind: "session",
    // Unlike a WebSocket's `subscribe`, it starts the feed: what it sends is the state, so `view`.
    scope: "view",
    transports: ["osc"],
    input: z.strictObject({
      filter: z.array(z.unknown()).describe("The filter's words: update types, project=, prefix="),
    }),
    output: z.strictObject({
      ok: z.literal(true),
      leaseSeconds: z.number(),
      filter: z.strictObject({
        types: z.array(z.string()).nullable(),
        projectId: z.string().nullable(),
        prefixes: z.array(z.string()),
      }),
    }),
    run: (ctx, input) => given(ctx.oscFeedback, "oscFeedback")(input.filter),
  }),
  defineOperation({
    name: "oscQuery",
    since: "6.0",
    summary:
      "Read the OSCQuery namespace (`GET /<path>?<attribute>`), or LISTEN to it over a WebSocket",
    tag: "playback",
    kind: "session",
    // What it answers is the state's values and the address table: `view`, as any read.
    scope: "view",
    transports: ["oscquery"],
    // The request itself is the input: its path, attribute and upgrade are the transport's.
    input: z.strictObject({}),
    output: z.unknown(),
    run: (ctx) => given(ctx.oscQuery, "oscQuery")(ctx.deviceId),
  }),
  defineOperation({
    name: "full",
    since: "6.0",
    summary: "Send this connection a full state update now",
    tag: "playback",
    kind: "session",
    input: z.strictObject({}),
    output: z.strictObject({ seq: z.number().int() }),
    run: (ctx) => {
      ctx.core.requireReady();
      return sessionOf(ctx).sendFull();
    },
  }),
  defineOperation({
    name: "ping",
    summary: "Application-level ping: the service's time",
    tag: "service",
    kind: "session",
    scope: null,
    needsApiAccess: false,
    input: z.strictObject({}),
    output: z.strictObject({ pong: z.literal(true), time: z.number() }),
    run: () => ({ pong: true as const, time: Date.now() }),
  }),
];
