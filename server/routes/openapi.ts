/**
 * `GET /api/v1/openapi.json`: an OpenAPI 3.1 document generated from the
 * route table's zod schemas and the action catalog, the same declarations
 * that validate requests.
 * @module
 */
import { z } from "zod";
import { ACTIONS, type ActionSpec, type ParamKind } from "../../protocol/actions.ts";
import {
  BASE,
  BOOLEAN_TEXT,
  CONTROL_LETTER,
  DIRECTIONS,
  FRACTION,
  INDEX_MIN,
  PRESET_KINDS,
  RECORD_MODES,
  TARGET_PATTERN,
} from "../../protocol/action_rules.ts";
import { PresetKind } from "../../protocol/model.ts";
import { ErrorBody } from "../core/mod.ts";
import { API_VERSION } from "./info.ts";
import type { RouteSpec } from "./route.ts";

type JsonSchema = Record<string, unknown>;

/** The `Idempotency-Key` header of the routes that take one. */
const IF_NONE_MATCH_HEADER = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description:
    "The ETag of a picture you have: when it is still the current one, the answer is 304",
  schema: { type: "string" },
};

const IDEMPOTENCY_HEADER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "A key of your choice (1-128 printable ASCII characters, a UUID is good): a retry with the same key within 10 minutes gets the first outcome instead of being applied again (docs/api.md, Safe retries).",
  schema: { type: "string", minLength: 1, maxLength: 128 },
};

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  });
  return rest;
}

/**
 * How each parameter kind may be sent on the wire (every value is coerced to a string). The
 * ranges, patterns and values are the protocol's (`protocol/action_rules.ts`), never restated.
 */
const WIRE_KIND: Record<ParamKind, JsonSchema> = {
  clipId: { type: ["string", "number"] },
  songId: { type: ["string", "number"] },
  text: { type: ["string", "number"] },
  index: {
    type: ["integer", "string"],
    minimum: INDEX_MIN,
    description:
      `Counted from ${BASE.default}, or from ${BASE.shifted} when base is ${BASE.shifted}`,
  },
  fraction: { type: ["number", "string"], minimum: FRACTION.min, maximum: FRACTION.max },
  number: { type: ["number", "string"] },
  boolean: {
    type: ["boolean", "string", "integer"],
    description: BOOLEAN_TEXT,
  },
  control: { type: "string", pattern: CONTROL_LETTER.source },
  target: { type: "string", pattern: TARGET_PATTERN.source },
  direction: { type: "string", enum: [...DIRECTIONS] },
  recordMode: { type: "string", enum: [...RECORD_MODES] },
  presetKind: { type: "string", enum: [...PRESET_KINDS] },
  projectId: { type: ["string", "number"] },
  region: { type: "string", description: "full, or x,y,width,height[;left=N;right=N;...]" },
};

/**
 * A param's description: its own, then what its kind says of the wire form (how a boolean or a
 * position may be sent) unless its own already says it, then whether it is optional.
 */
function paramDescription(p: ActionSpec["params"][number]): string {
  const kind = WIRE_KIND[p.kind].description;
  const isSaid = typeof kind !== "string" ||
    p.description.toLowerCase().includes(kind.toLowerCase());
  const wire = isSaid ? "" : `. ${kind}`;
  return `${p.description}${wire}${p.isOptional ? " (optional)" : ""}`;
}

/** One schema per catalog action: its name and its positional params. */
function actionSchema(): JsonSchema {
  return {
    allOf: [{ $ref: "#/components/schemas/ActionBody" }],
    oneOf: ACTIONS.map((a) => ({
      title: a.name,
      description: a.description,
      properties: {
        name: { const: a.name },
        // The target Project: an action about the application (PROJECT_SELECT) takes none.
        ...(a.isAppWide ? { projectID: false } : {}),
        params: {
          type: "array",
          // JSON Schema wants a non-empty prefixItems: an action without params has none.
          ...(a.params.length > 0
            ? {
              prefixItems: a.params.map((p) => ({
                ...WIRE_KIND[p.kind],
                title: p.name,
                description: paramDescription(p),
              })),
            }
            : {}),
          minItems: a.params.filter((p) => !p.isOptional).length,
          maxItems: a.params.length,
        },
      },
    })),
  };
}

/** The error statuses every API route may answer. */
const ERROR_RESPONSES: Record<string, string> = {
  "400": "Bad request: the message names the field",
  "401": "Authentication required, or invalid token",
  "403":
    "No API access in the plan, a missing scope, a foreign Host or Origin, or a local-only route",
  "404": "Not found",
  "405": "Another method is allowed on this path (the Allow header lists it)",
  "429": "Too many requests from this remote address (Retry-After says when to try again)",
  "500": "Server error, or the action was refused (the message says why)",
  "503": "The player is not ready yet, or a connection budget is full",
  "504": "The player did not answer in time",
};

/** The statuses a route answers beyond those of every route. */
function extraErrors(route: RouteSpec): Record<string, string> {
  const extra: Record<string, string> = {};
  if (route.method === "POST") extra["413"] = "The body is larger than the limit";
  if (route.method === "POST") extra["408"] = "The client sent its body too slowly";
  if (route.rawBody) extra["415"] = "The media is no format the player supports";
  if (route.idempotent) extra["422"] = "The Idempotency-Key was used for a different request";
  if (route.operation.name === "waveform") {
    extra["415"] = "Audio that needs ffmpeg, or broken audio (CORRUPT_MEDIA is 400)";
  }
  if (route.operation.produces) extra["503"] = "The player is not ready, or ffmpeg is missing";
  return extra;
}

/** The OpenAPI document: its schema (the top level; what is below is JSON Schema) and its builder. */
export const openApiDocument = {
  schema: z.strictObject({
    openapi: z.literal("3.1.0"),
    servers: z.array(z.strictObject({ url: z.string(), description: z.string() })),
    info: z.strictObject({ title: z.string(), version: z.string(), description: z.string() }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
    components: z.strictObject({
      schemas: z.record(z.string(), z.unknown()),
      securitySchemes: z.record(z.string(), z.unknown()),
    }),
  }),
  build(routes: readonly RouteSpec[], version: string): JsonSchema {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const route of routes) {
      const path = route.path.replace(/:([A-Za-z]+)/g, "{$1}");
      (paths[path] ??= {})[route.method.toLowerCase()] = operationOf(route, path);
    }
    const actionBody = routes.find((r) => r.path === "/api/v1/action")?.body;
    return {
      openapi: "3.1.0",
      // Relative: the document is served by the API it describes, on whatever host and port.
      servers: [{ url: "/", description: "This Cueport service" }],
      info: {
        title: "Cueport local control API",
        version: API_VERSION,
        description:
          `Cueport ${version}. Connections from 127.0.0.1 and ::1 need no token; remote devices pair first.`,
      },
      paths,
      components: {
        schemas: {
          ErrorBody: jsonSchema(ErrorBody, "output"),
          ...(actionBody
            ? { ActionBody: jsonSchema(actionBody, "input"), Action: actionSchema() }
            : {}),
        },
        securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      },
    };
  },
};

/** The OpenAPI operation of a route, at its OpenAPI `path`. */
function operationOf(route: RouteSpec, path: string): JsonSchema {
  const produces = route.produces ?? route.operation.produces;
  return {
    summary: route.summary,
    tags: [route.tag],
    operationId: `${route.method.toLowerCase()}${
      path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string) => (c ? c.toUpperCase() : ""))
    }`,
    parameters: [
      ...parametersOf(route),
      ...(route.idempotent ? [IDEMPOTENCY_HEADER] : []),
      ...(produces ? [IF_NONE_MATCH_HEADER] : []),
    ],
    ...requestBodyOf(route),
    responses: responsesOf(route, produces),
    security: route.auth ? [{}, { bearerAuth: [] }] : [],
  };
}

/** A route's path parameters, then its query parameters. */
function parametersOf(route: RouteSpec): JsonSchema[] {
  const pathParams = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: m[1] === "kind" ? { type: "string", enum: PresetKind.options } : { type: "string" },
  }));
  const queryParams = Object.entries(route.query?.shape ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: !(schema as z.ZodType).safeParse(undefined).success,
    schema: jsonSchema(schema as z.ZodType, "input"),
  }));
  return [...pathParams, ...queryParams];
}

/** A route's `requestBody` (raw bytes, or JSON: the action's by reference), or nothing. */
function requestBodyOf(route: RouteSpec): { requestBody?: JsonSchema } {
  const isAction = route.path === "/api/v1/action";
  return {
    ...(route.rawBody
      ? {
        requestBody: {
          required: true,
          content: Object.fromEntries(
            Object.entries(route.rawBody).map(([type, schema]) => [type, { schema }]),
          ),
        },
      }
      : {}),
    ...(route.body
      ? {
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: isAction
                ? { $ref: "#/components/schemas/Action" }
                : jsonSchema(route.body, "input"),
            },
          },
        },
      }
      : {}),
  };
}

/** A route's answers: its picture (`produces`) or JSON, then its errors in order (none for `/health`). */
function responsesOf(
  route: RouteSpec,
  produces: readonly string[] | undefined,
): Record<string, unknown> {
  const responses: Record<string, unknown> = produces
    ? {
      "200": {
        description: "The picture, with a strong ETag",
        content: Object.fromEntries(
          produces.map((type) => [type, { schema: { type: "string", format: "binary" } }]),
        ),
      },
      "304": { description: "Not modified: If-None-Match named the current picture" },
    }
    : {
      "200": {
        description: "OK",
        content: { "application/json": { schema: jsonSchema(route.response, "output") } },
      },
    };
  if (route.path !== "/health") {
    const errors = { ...ERROR_RESPONSES, ...extraErrors(route) };
    for (const [code, description] of Object.entries(errors).sort()) {
      responses[code] = {
        description,
        content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
      };
    }
  }
  return responses;
}
