/**
 * What an MCP tool is: a wire name over one or more operations of the
 * catalog, with the schemas, annotations and description a model reads.
 * The tools themselves are declared in `query_tools.ts`, `action_tools.ts`
 * and `edit_tools.ts`.
 * @module
 */
import { z } from "zod";
import { type AnyOperation, parseInput, renameFields } from "../core/mod.ts";

/** An image a tool answers beside its JSON (a Clip's thumbnail). */
export interface ToolImage {
  /** Base64 of the bytes. */
  data: string;
  mimeType: string;
}

/** What a tool answers: the structured result, and images when it shows Clips. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  images?: ToolImage[];
}

/** A `tools/call` result: the answer, or a failure with `isError` (`errors.ts`). */
export interface CallResult {
  [key: string]: unknown;
  content: Array<
    { type: "text"; text: string } | { type: "image"; data: string; mimeType: string }
  >;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What a tool may do while it runs. */
export interface ToolContext {
  /** Runs an operation of the catalog for the caller (authorized, input checked). */
  run(operation: AnyOperation, input: unknown): Promise<unknown>;
  /** The active Project, for tools whose input may omit it. */
  activeProjectId(): string | null;
}

/** The MCP tool annotations (hints for clients; the policy decides, not these). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One MCP tool. */
export interface McpTool<I = Record<string, unknown>> {
  name: string;
  /** What the model reads: what it does, when to use it, an example. */
  description: string;
  annotations: ToolAnnotations;
  /** The operation whose scope decides whether the tool is listed. */
  operation: AnyOperation;
  /** Every operation the tool may run (`tests/server/operations_reach_test.ts` reads it). */
  reaches: readonly AnyOperation[];
  /** The input as clients see it (its JSON Schema is the tool's `inputSchema`). */
  input: z.ZodObject;
  /**
   * Older spellings of input fields still accepted for a while, old name to
   * new; the tool's description says so (docs/mcp.md, "Spellings").
   */
  renamed?: Readonly<Record<string, string>>;
  /** How the input is checked; default: the `input` schema, naming the bad field. */
  parse?: (raw: unknown) => I;
  /** The structured answer (its JSON Schema is the tool's `outputSchema`). */
  output: z.ZodType;
  call(input: I, ctx: ToolContext): Promise<ToolAnswer>;
}

/** A tool of any input, as the table holds them. */
// deno-lint-ignore no-explicit-any
export type AnyTool = McpTool<any>;

/** Annotations of a read: read-only, idempotent, closed world. */
export function readAnnotations(title: string): ToolAnnotations {
  return {
    title,
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  };
}

/** Annotations of a change; `isDestructive` for tools that delete or reload. */
export function changeAnnotations(title: string, isDestructive: boolean): ToolAnnotations {
  return {
    title,
    readOnlyHint: false,
    destructiveHint: isDestructive,
    idempotentHint: false,
    openWorldHint: false,
  };
}

/**
 * A tool that runs one operation of the catalog with its input as it is and
 * answers exactly what the operation answers (query tools, the show file's tools).
 */
export function operationTool(
  spec: Pick<McpTool, "name" | "description" | "annotations">,
  operation: AnyOperation,
): AnyTool {
  return {
    ...spec,
    operation,
    reaches: [operation],
    input: operation.input as z.ZodObject,
    output: operation.output,
    call: async (input, ctx) => ({
      structured: await ctx.run(operation, input) as Record<string, unknown>,
    }),
  };
}

/** A tool's input checked as it declares. */
export function checkToolInput<I>(tool: McpTool<I>, raw: unknown): I {
  const input = renameFields(raw ?? {}, tool.renamed);
  return tool.parse ? tool.parse(input) : parseInput(tool.input, input) as I;
}

/** A schema as JSON Schema, without `$schema` (the MCP tool list carries them bare). */
export function jsonSchemaOf(
  schema: z.ZodType,
  io: "input" | "output",
): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return rest;
}
