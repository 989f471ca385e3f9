// @ts-check
// The editor window's controls: the code (a plain textarea with line numbers), the preset's
// parameters as controls, the problems of a refused edit at their lines. It keeps no preset
// of its own: it shows what the player sends and hands each change to `send` as an edit.

/** @typedef {import("../../../protocol/model.ts").Preset} Preset */
/** @typedef {import("../../../protocol/model.ts").PresetParameter} PresetParameter */
/** @typedef {import("../../../protocol/editor_page.ts").FromEditor} FromEditor */
/** @typedef {import("../../../protocol/editor_page.ts").ToEditor} ToEditor */
/**
 * A problem of a refused edit.
 * @typedef {Extract<ToEditor, {type: "edited"}>["problems"][number]} Problem
 */
/**
 * An edit as the controls give it: an `edit`, `param` or `history` message without its id.
 * @typedef {FromEditor extends infer M
 *   ? M extends {id: number} ? Omit<M, "id"> : never
 *   : never} Edit
 */
/** @typedef {(edit: Edit) => void} SendEdit */

/**
 * The page's element `id` (the page has it: `editor.html`).
 * @param {string} id
 */
function $(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`The editor page has no element "${id}"`);
  return el;
}

/** The editor's controls over its page's elements. */
export class EditorUi {
  #code = /** @type {HTMLTextAreaElement} */ ($("code"));
  #gutter = $("gutter");
  /** The preset shown (as the player last sent it). @type {Preset | null} */
  #shown = null;
  /**
   * The preset's code the text in the box was typed over (an edit applied over another one
   * the page has not taken is refused): the code last put in the box, or last applied from it.
   */
  #base = "";
  /** @type {Set<number>} */
  #errorLines = new Set();
  /**
   * The code of the page's last edit sent and not answered yet: the next is typed over it.
   * @type {string | null}
   */
  #pending = null;

  /** Whether the code in the box is not the preset's (typed, not applied). */
  get isDirty() {
    return this.#shown !== null && this.#code.value !== this.#shown.code;
  }

  /**
   * Shows the problems of a refused edit (none: clears them).
   * @param {Problem[]} problems
   */
  showProblems(problems, message = "") {
    this.#errorLines = new Set(problems.map((p) => p.line));
    const items = problems.map((p) => {
      const li = document.createElement("li");
      li.textContent = `line ${p.line}, column ${p.column}: ${p.message}`;
      li.dataset.line = String(p.line);
      li.dataset.column = String(p.column);
      li.onclick = () => this.#select(p.line, p.column);
      return li;
    });
    if (problems.length === 0 && message) {
      const li = document.createElement("li");
      li.textContent = message;
      items.push(li);
    }
    $("problems").replaceChildren(...items);
    this.#renderGutter();
  }

  /**
   * The status line: `state` is `done`, `refused` or `busy`.
   * @param {"done" | "refused" | "busy"} state
   * @param {string} text
   */
  setStatus(state, text) {
    $("status").dataset.state = state;
    $("status").textContent = text;
  }

  /**
   * A note under the preview (why there is none, what its GL said).
   * @param {string} text
   */
  setPreviewNote(text) {
    $("preview-note").textContent = text;
  }

  /**
   * Shows `preset` as the player sent it; the code typed and not applied is kept.
   * @param {Preset} preset
   * @param {SendEdit} send
   */
  showPreset(preset, send) {
    const wasDirty = this.isDirty;
    const isSame = this.#shown?.id === preset.id;
    this.#shown = preset;
    document.title = `${preset.name}: Cueport preset editor`;
    $("name").textContent = preset.name;
    $("kind").textContent = `${preset.kind} preset ${preset.id} (${preset.type}${
      preset.builtIn ? ", built in: read only" : ""
    })`;
    if (!wasDirty || !isSame) {
      this.#code.value = preset.code;
      this.#base = preset.code;
      $("elsewhere").hidden = true;
      this.showProblems([]);
    } else $("elsewhere").hidden = this.#code.value === preset.code;
    this.#code.readOnly = preset.builtIn;
    $("params").replaceChildren(...preset.parameters.map((p) => control(p, send)));
    this.#renderGutter();
  }

  /**
   * The answer to the page's own edit of the code to `applied`: written, it is the base of what
   * is typed next, even before the preset's new code comes back (Apply pressed again meanwhile).
   * @param {string} applied
   * @param {boolean} isOk
   */
  codeAnswered(applied, isOk) {
    if (isOk) this.#base = applied;
    if (!isOk || this.#pending === applied) this.#pending = null;
  }

  /**
   * Wires the buttons and keys to `send`.
   * @param {SendEdit} send
   */
  wire(send) {
    const code = this.#code;
    const apply = () => {
      send({ type: "edit", code: code.value, base: this.#pending ?? this.#base });
      this.#pending = code.value;
    };
    $("apply").onclick = apply;
    $("undo").onclick = () => send({ type: "history", direction: "undo" });
    $("redo").onclick = () => send({ type: "history", direction: "redo" });
    $("revert").onclick = () => {
      this.#takeShown();
      this.showProblems([]);
    };
    $("take").onclick = () => {
      this.#takeShown();
      $("elsewhere").hidden = true;
      this.showProblems([]);
    };
    $("params").onsubmit = (event) => event.preventDefault();
    code.addEventListener("input", () => this.#renderGutter());
    code.addEventListener("scroll", () => this.#gutter.scrollTop = code.scrollTop);
    code.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        apply();
      } else if (event.key === "Tab") {
        event.preventDefault();
        code.setRangeText("  ", code.selectionStart, code.selectionEnd, "end");
        this.#renderGutter();
      }
    });
  }

  #renderGutter() {
    const count = this.#code.value.split("\n").length;
    this.#gutter.replaceChildren(
      ...Array.from({ length: count }, (_, i) => {
        const line = document.createElement("span");
        line.textContent = `${i + 1}\n`;
        if (this.#errorLines.has(i + 1)) line.className = "error";
        return line;
      }),
    );
    this.#gutter.scrollTop = this.#code.scrollTop;
  }

  /**
   * Selects line `line`, column `column` (1-based) of the code.
   * @param {number} line
   * @param {number} column
   */
  #select(line, column) {
    const lines = this.#code.value.split("\n");
    let at = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) at += (lines[i]?.length ?? 0) + 1;
    at += Math.max(0, column - 1);
    this.#code.focus();
    this.#code.setSelectionRange(at, at + 1);
  }

  /** Puts the shown preset's code in the box, as the base of what is typed next. */
  #takeShown() {
    if (!this.#shown) return;
    this.#code.value = this.#shown.code;
    this.#base = this.#shown.code;
    this.#pending = null;
  }
}

/**
 * A parameter's control: it writes when let go (`change`), not at each step of a drag: one
 * edit, one undo.
 * @param {PresetParameter} parameter
 * @param {SendEdit} send
 */
function control(parameter, send) {
  const label = document.createElement("label");
  const name = document.createElement("span");
  name.textContent = parameter.name;
  const value = document.createElement("output");
  const input = parameter.type === "enum" ? choice(parameter) : field(parameter, value);
  input.dataset.param = parameter.name;
  input.name = parameter.name;
  input.onchange = () => {
    const v = input instanceof HTMLInputElement && parameter.type === "boolean"
      ? input.checked
      : parameter.type === "number"
      ? Number(input.value)
      : input.value;
    send({ type: "param", name: parameter.name, value: v });
  };
  label.append(name, input, value);
  return label;
}

/**
 * An enum parameter's list of options.
 * @param {PresetParameter} parameter
 */
function choice(parameter) {
  const input = document.createElement("select");
  for (const option of parameter.options ?? []) input.add(new Option(option, option));
  input.value = String(parameter.default);
  return input;
}

/**
 * A boolean, color or number parameter's input; a number's shows its value in `value`.
 * @param {PresetParameter} parameter
 * @param {HTMLOutputElement} value
 */
function field(parameter, value) {
  const input = document.createElement("input");
  if (parameter.type === "boolean") {
    input.type = "checkbox";
    input.checked = parameter.default === true;
    return input;
  }
  if (parameter.type === "color") {
    input.type = "color";
    input.value = String(parameter.default);
    return input;
  }
  const { min, max } = parameter;
  const isRange = min !== undefined && max !== undefined;
  input.type = isRange ? "range" : "number";
  if (isRange) {
    input.min = String(min);
    input.max = String(max);
    input.step = String((max - min) / 1000 || "any");
  } else input.step = "any";
  input.value = String(parameter.default);
  value.textContent = String(parameter.default);
  input.oninput = () => value.textContent = input.value;
  return input;
}
