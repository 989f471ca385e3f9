// @ts-check
// The set list's Project picker: the shows on disk, the active one marked, damaged ones with their
// problem, closed ones apart; tap one to make it active, open a closed one, create a new one.

import { html, useState } from "./preact.js";
import { goProps } from "./gestures.js";

/** @typedef {import("./api.js").LibraryItem} LibraryItem */
/** @typedef {import("./views.js").FieldInput} FieldInput */

/**
 * What a row says under a show's name: its problem when it has one, else its size.
 * @param {LibraryItem} entry
 */
function detailOf(entry) {
  if (entry.problem) {
    const recovered = entry.problem.recoveredFrom
      ? `, served from ${entry.problem.recoveredFrom}`
      : "";
    return `${entry.problem.file}: ${entry.problem.problem}${recovered}`;
  }
  return `${entry.songCount} songs, ${entry.clipCount} clips`;
}

/**
 * The badge of a row: Active, Damaged, or nothing.
 * @param {LibraryItem} entry
 */
function badgeOf(entry) {
  if (entry.active) return "Active";
  return entry.state === "damaged" ? "Damaged" : "";
}

/**
 * One show: a go button; tapping it selects (open) or opens then selects (closed).
 * @param {{entry: LibraryItem, isEnabled: boolean, onTap: () => unknown}} props
 */
function ShowRow({ entry, isEnabled, onTap }) {
  const badge = badgeOf(entry);
  return html`
    <li key=${entry.projectId}>
      <button class=${`show state-${entry.state}${entry.active ? " active" : ""}`}
        data-show=${entry.projectId} data-state=${entry.state}
        aria-current=${entry.active ? "true" : "false"} disabled=${!isEnabled}
        ...${isEnabled ? goProps(onTap) : {}}>
        <span class="show-name">${entry.name}</span>
        <span class="show-badge">${badge}</span>
        <span class=${`show-detail${entry.problem ? " show-problem" : ""}`}>${detailOf(
          entry,
        )}</span>
      </button>
    </li>
  `;
}

/**
 * The form that creates an empty show (`project.create`).
 * @param {{onCreate: (name: string) => Promise<boolean>}} props
 */
function NewShow({ onCreate }) {
  const [name, setName] = useState("");
  /** @param {SubmitEvent} event */
  const submit = async (event) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (trimmed && (await onCreate(trimmed))) setName("");
  };
  return html`
    <form class="row new-show" onSubmit=${submit}>
      <label for="new-show-name">New show</label>
      <input id="new-show-name" maxlength="120" required placeholder="Name" value=${name}
        onInput=${(/** @type {FieldInput} */ e) => setName(e.currentTarget.value)} />
      <button type="submit" data-edit="project.create">Create</button>
    </form>
  `;
}

/**
 * The Project picker. `canControl` lets a tap select an open show (`PROJECT_SELECT`);
 * `canEdit` as well lets it open a closed one (`project.open`, then select) and create one.
 * @param {object} props
 * @param {LibraryItem[] | null} props.library
 * @param {boolean} props.canControl
 * @param {boolean} props.canEdit
 * @param {(projectId: string) => unknown} props.select
 * @param {(projectId: string) => unknown} props.open
 * @param {(name: string) => Promise<boolean>} props.create
 */
export function Shows({ library, canControl, canEdit, select, open, create }) {
  if (!library) {
    return html`
      <section class="shows">
        <p class="note">Reading the shows...</p>
      </section>
    `;
  }
  const here = library.filter((e) => e.state === "open" || e.state === "damaged");
  const closed = library.filter((e) => e.state === "closed");
  return html`
    <section class="shows" aria-label="Shows">
      <h2>Shows</h2>
      <ul class="show-list" data-shows="open">
        ${here.map((entry) =>
          html`
            <${ShowRow} key=${entry.projectId} entry=${entry}
              isEnabled=${canControl && entry.state === "open"}
              onTap=${() => select(entry.projectId)} />
          `
        )}
      </ul>
      ${closed.length > 0 && html`
        <h3>Closed</h3>
        <ul class="show-list" data-shows="closed">
          ${closed.map((entry) =>
            html`
              <${ShowRow} key=${entry.projectId} entry=${entry}
                isEnabled=${canControl && canEdit} onTap=${() => open(entry.projectId)} />
            `
          )}
        </ul>
      `}
      ${canEdit && html`<${NewShow} onCreate=${create} />`}
    </section>
  `;
}
