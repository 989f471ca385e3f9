/**
 * The tool table: every MCP tool of the spec (section 4.4) by name, and the
 * `tools/list` entries generated from it (input and output JSON Schemas from
 * the same zod declarations HTTP checks with).
 * @module
 */
import { showTools } from "./show_tools.ts";
import type { AnyOperation } from "../core/mod.ts";
import { actionTools } from "./action_tools.ts";
import { editTools } from "./edit_tools.ts";
import { outputFrameTool } from "./output_tools.ts";
import { queryTools } from "./query_tools.ts";
import { displayTools } from "./display_tools.ts";
import { midiTools } from "./midi_tools.ts";
import { type AnyTool, jsonSchemaOf, type ToolAnnotations } from "./tool.ts";

/** The tool names of the spec, in its order (a test compares the live list with it). */
export const TOOL_NAMES: readonly string[] = [
  "app_get_projects",
  "app_get_project",
  "app_get_project_summary",
  "app_get_active_project",
  "app_get_playstate",
  "app_get_app_state",
  "app_get_songs",
  "app_get_song",
  "app_get_clips",
  "app_get_clip",
  "app_get_effects",
  "app_get_visualizers",
  "app_get_presets",
  "app_get_preset",
  "app_get_preset_controls",
  "app_get_output_frame",
  "app_clip_edit",
  "app_song_edit",
  "app_project_edit",
  "app_effect_edit",
  "app_visualizer_edit",
  "app_preset_edit",
  "app_file_edit",
  "app_describe_edit",
  "app_validate_preset",
  "app_playback",
  "app_system",
  "app_open_editor",
  "app_control",
  "app_project_select",
  "app_project_export",
  "app_project_import",
  "app_get_displays",
  "app_get_midi",
  "app_midi_learn",
];

/**
 * Operations of the kinds MCP carries that no tool of the spec names; they
 * stay on HTTP and WebSocket ("The tools cover most but not all actions").
 */
export const NOT_CARRIED: Readonly<Record<string, string>> = {
  cameras: "no tool of the spec lists cameras",
  imports: "an import over MCP answers when it is done; progress is on HTTP and WebSocket",
  waveform: "no tool of the spec shows waveforms",
  cameraThumbnail: "no tool of the spec shows cameras",
  presetImage: "app_get_presets lists a preset's images; their bytes are on HTTP",
};

/** A `tools/list` entry. */
export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
}

/** An object schema as MCP wants it: a union becomes `{type: "object", anyOf}`. */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return schema.type === "object" ? schema : { type: "object", ...schema };
}

/** The tools, their listings (built once: zod's conversion is not free) and lookups. */
export class ToolTable {
  readonly tools: readonly AnyTool[];
  readonly byName: ReadonlyMap<string, AnyTool>;
  #listings = new Map<AnyTool, ToolListing>();

  /** Builds the table; `maxUploadBytes` bounds what `app_file_edit` imports from bytes. */
  constructor(options: { maxUploadBytes: number }) {
    this.tools = [
      ...queryTools(),
      outputFrameTool(),
      ...editTools(() => options.maxUploadBytes),
      ...actionTools(),
      ...showTools(),
      ...displayTools(),
      ...midiTools(),
    ];
    this.byName = new Map(this.tools.map((t) => [t.name, t]));
  }

  /** The `tools/list` entry of a tool. */
  listing(tool: AnyTool): ToolListing {
    let listing = this.#listings.get(tool);
    if (!listing) {
      listing = {
        name: tool.name,
        title: tool.annotations.title,
        description: tool.description,
        inputSchema: objectSchema(jsonSchemaOf(tool.input, "input")),
        outputSchema: objectSchema(jsonSchemaOf(tool.output, "output")),
        annotations: tool.annotations,
      };
      this.#listings.set(tool, listing);
    }
    return listing;
  }

  /** Every operation some tool may run. */
  reached(): Set<AnyOperation> {
    return new Set(this.tools.flatMap((t) => t.reaches));
  }
}
