/**
 * The show file's tools (docs/projects.md, "The show file"): export a Project
 * to a path on the show machine, and import one from a path. Both name files
 * on that machine, so only a client on it may call them (local-only
 * operations).
 * @module
 */
import { operationNamed } from "../core/mod.ts";
import { type AnyTool, changeAnnotations, operationTool } from "./tool.ts";

/** `app_project_export` and `app_project_import`. */
export function showTools(): AnyTool[] {
  return [
    operationTool({
      name: "app_project_export",
      description:
        'Write a Project as a show file (a zip: project.json, presets.json, its media and a manifest of sizes and sha256) to a path on the show machine, for a backup or another machine; only a client on the show machine may. The file appears whole or not at all. Example: {"projectId": "demo", "path": "/home/show/Demo.cueport.zip"}',
      annotations: changeAnnotations("Export a show file", false),
    }, operationNamed("projectExportFile")),
    operationTool({
      name: "app_project_import",
      description:
        'Import a show file from a path on the show machine as a new Project (checked whole first: a truncated or changed file is refused with the reason and leaves nothing). A Project id that is taken gets -2, -3...; replace: true replaces the Project of that id instead. Only a client on the show machine may. Example: {"path": "/home/show/Demo.cueport.zip"}',
      annotations: changeAnnotations("Import a show file", false),
    }, operationNamed("projectImportFile")),
  ];
}
