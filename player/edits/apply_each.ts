/**
 * The edits of a batch run on its draft: the handler of every edit of the
 * catalog (checked at load: each edit has one, but undo, redo and the
 * lifecycle edits, which run elsewhere), in order, their outcomes, and the
 * Project they make checked whole.
 * @module
 */
import { type EditOutcome, EDITS_BY_NAME } from "../../protocol/edits/mod.ts";
import { LIFECYCLE_EDITS } from "../../protocol/edits/project.ts";
import { Project } from "../../protocol/model.ts";
import { Refusal } from "../errors.ts";
import { CLIP_HANDLERS } from "./clip_edits.ts";
import type { EditDraft, EditHandler } from "./draft.ts";
import { FX_HANDLERS } from "./fx_edits.ts";
import { GENERATOR_HANDLERS } from "./generator_edits.ts";
import type { ParsedEdit } from "./parse.ts";
import { PROJECT_HANDLERS } from "./project_edits.ts";
import { SONG_HANDLERS } from "./song_edits.ts";
import { TIMECODE_HANDLERS } from "./timecode_edits.ts";

const HANDLERS: Record<string, EditHandler> = {
  ...CLIP_HANDLERS,
  ...GENERATOR_HANDLERS,
  ...SONG_HANDLERS,
  ...PROJECT_HANDLERS,
  ...FX_HANDLERS,
  ...TIMECODE_HANDLERS,
  "file.import": async (d, p) => {
    const file = await d.importFile(p.path, p.name);
    d.project.files.push(file);
    d.created.fileId = file.id;
    return `File "${file.id}" imported as ${file.path} (${file.kind}, ${file.size} bytes)`;
  },
};

for (const name of EDITS_BY_NAME.keys()) {
  const isElsewhere = name === "project.undo" || name === "project.redo" ||
    LIFECYCLE_EDITS.has(name);
  if (!isElsewhere && !HANDLERS[name]) {
    throw new Error(`Edit "${name}" has no handler`);
  }
}

/**
 * The batch's lifecycle edit (`project.create` ...), or null when it has none.
 * @throws {Refusal} when one comes with other edits: each runs alone
 */
export function lifecycleEdit(parsed: readonly ParsedEdit[]): ParsedEdit | null {
  const found = parsed.find((e) => LIFECYCLE_EDITS.has(e.spec.name));
  if (found && parsed.length > 1) {
    throw new Refusal(
      `${found.spec.name} cannot be part of a batch: send it alone, then the edits of the Project`,
    );
  }
  return found ?? null;
}

/** A refusal's field as its message names it: `Invalid params.input: ...` names `params.input`. */
const NAMED_FIELD = /^Invalid (params(?:\.[A-Za-z_][\w]*|\[\d+\])*)(?: \([^)]*\))?:/;

/**
 * Runs one edit's handler; a refusal naming a field (`data.field`, else its message's
 * `Invalid params.<field>:`) gets it as `data.field`, and the edit's index as `data.edit`.
 */
async function inEdit(index: number, run: () => string | Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const field = typeof error.data?.field === "string"
      ? error.data.field
      : NAMED_FIELD.exec(error.message)?.[1];
    if (field === undefined) throw error;
    throw new Refusal(error.message, error.code, { ...error.data, field, edit: index });
  }
}

/**
 * Runs each edit of a batch on the draft, in order; their outcomes and the
 * Project they make, checked whole.
 * @throws {Refusal} naming the edit that failed, or the Project's first problem
 */
export async function applyEach(
  draft: EditDraft,
  edits: ParsedEdit[],
): Promise<{ outcomes: EditOutcome[]; project: Project }> {
  const outcomes: EditOutcome[] = [];
  for (const [index, { spec, params }] of edits.entries()) {
    draft.created = {};
    delete draft.result;
    const message = await inEdit(index, () => HANDLERS[spec.name]!(draft, params));
    const outcome: EditOutcome = { name: spec.name, message };
    if (Object.keys(draft.created).length > 0) outcome.created = draft.created;
    if (draft.result !== undefined) outcome.result = draft.result;
    outcomes.push(outcome);
  }
  const checked = Project.safeParse(draft.project);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new Refusal(
      `The edit would make the Project invalid: ${issue.path.join(".")}: ${issue.message}`,
    );
  }
  return { outcomes, project: checked.data };
}
