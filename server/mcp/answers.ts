/**
 * How a tool's answer goes out: the structured result as `structuredContent`
 * and as JSON text (for clients that read only text), images beside it; and
 * the hint of what to call next that a failed call carries (`errors.ts`
 * makes the failed call's result), so the model can correct itself.
 * @module
 */
import type { CueportError } from "../core/mod.ts";
import type { CallResult, ToolAnswer } from "./tool.ts";

/** A successful call. */
export function resultOf(answer: ToolAnswer): CallResult {
  const content: CallResult["content"] = [
    { type: "text", text: JSON.stringify(answer.structured) },
  ];
  for (const image of answer.images ?? []) content.push({ type: "image", ...image });
  return { content, structuredContent: answer.structured };
}

/** What to call to find a valid id, by the noun an error names. */
const LOOKUPS: Array<[RegExp, string]> = [
  [/\bclip/i, "call app_get_clips (or app_get_song for a Song's Clips) to find valid Clip ids"],
  [/\bsong/i, "call app_get_songs to find valid Song ids"],
  [/\bpreset/i, "call app_get_presets to find valid preset ids and kinds"],
  [/\beffect/i, "call app_get_effects to find valid Effect ids"],
  [/\bvisualizer/i, "call app_get_visualizers to find valid Visualizer ids"],
  [/\bfile/i, "call app_get_project to see the Project's files"],
  [/\bproject/i, "call app_get_projects to find valid projectId values"],
  [/\bedit\b|edit name|unknown edit/i, "call app_describe_edit without a name to list the edits"],
];

/** The field or the message names what was not found: the lookup that finds a valid one. */
function lookupHint(e: CueportError): string | undefined {
  const field = typeof e.details?.field === "string" ? e.details.field : "";
  // The field names the thing better than the message (which may quote a name).
  for (const [pattern, hint] of LOOKUPS) if (field && pattern.test(field)) return hint;
  for (const [pattern, hint] of LOOKUPS) if (pattern.test(e.message)) return hint;
  return undefined;
}

/** A hint of what to do next, by code; `tool` is the tool that failed. */
export function hintOf(e: CueportError, tool: string): string {
  switch (e.code) {
    case "NOT_FOUND":
      return lookupHint(e) ?? "call app_get_projects and app_get_project to see what exists";
    case "INVALID_MESSAGE":
      if (tool.endsWith("_edit") && tool !== "app_file_edit") {
        return `check the params against app_describe_edit {"name": "<edit>"}, then call ${tool} again`;
      }
      return `fix the field named in the message (the tool's input schema gives types and ranges), then call ${tool} again`;
    case "EDIT_REFUSED":
    case "ACTION_FAILED":
      return `${
        lookupHint(e) ?? "read the current state (app_get_project, app_get_playstate)"
      }, then call ${tool} again`;
    case "INVALID_SHADER":
      return `fix the code at the lines and columns in details.problems (app_validate_preset checks it without writing), then call ${tool} again`;
    case "INSUFFICIENT_SCOPE":
      return "this device token lacks the scope; pair the device again with it (docs/security.md)";
    case "AUTHENTICATION_FAILED":
      return "the token is invalid, expired or revoked: pair the device again";
    case "LOCAL_ONLY":
      return tool === "app_file_edit"
        ? "send the file's bytes as contentBase64 with a name instead of a path"
        : "only a client on the show machine may do this";
    case "NOT_READY":
    case "TIMEOUT":
      return "the player is starting or busy: wait a moment and call again";
    case "RATE_LIMITED":
      return "too many requests: wait the seconds in details.retryAfterSeconds";
    case "DISK_FULL":
      return `nothing was written: ask the operator to free space on the show machine's disk, then call ${tool} again`;
    case "API_ACCESS_DENIED":
      return "the show machine's plan has no API access";
    default:
      return "read the message; app_get_app_state and app_get_project show the current state";
  }
}
