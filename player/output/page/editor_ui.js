// @ts-check
// The editor window's controls: the code and its vertex shader (plain textareas with line
// numbers), the preset's parameters as controls, the problems of a refused edit at their lines.
// It keeps no preset of its own: it shows what the player sends and hands each change to `send`
// as an edit.

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

/** A code area: a textarea with line numbers, the lines of problems marked in its margin. */
class CodeBox {
  /** @type {HTMLTextAreaElement} */
  area;
  #gutter;
  /** @type {Set<number>} */
  #errorLines = new Set();

  /**
   * The box of the textarea `areaId` and its margin `gutterId`.
   * @param {string} areaId
   * @param {string} gutterId
   */
  constructor(areaId, gutterId) {
    this.area = /** @type {HTMLTextAreaElement} */ ($(areaId));
    this.#gutter = $(gutterId);
  }

  /**
   * Marks the lines of `problems` (none: clears them).
   * @param {Problem[]} problems
   */
  mark(problems) {
    this.#errorLines = new Set(problems.map((p) => p.line));
    this.renderGutter();
  }

  /**
   * Wires Ctrl+Enter to `apply`, Tab to two spaces, and the margin to the text.
   * @param {() => void} apply
   */
  wire(apply) {
    const area = this.area;
    area.addEventListener("input", () => this.renderGutter());
    area.addEventListener("scroll", () => this.#gutter.scrollTop = area.scrollTop);
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        apply();
      } else if (event.key === "Tab") {
        event.preventDefault();
        area.setRangeText("  ", area.selectionStart, area.selectionEnd, "end");
        this.renderGutter();
      }
    });
  }

  renderGutter() {
    const count = this.area.value.split("\n").length;
    this.#gutter.replaceChildren(
      ...Array.from({ length: count }, (_, i) => {
        const line = document.createElement("span");
        line.textContent = `${i + 1}\n`;
        if (this.#errorLines.has(i + 1)) line.className = "error";
        return line;
      }),
    );
    this.#gutter.scrollTop = this.area.scrollTop;
  }

  /**
   * Selects line `line`, column `column` (1-based) of the text.
   * @param {number} line
   * @param {number} column
   */
  select(line, column) {
    const lines = this.area.value.split("\n");
    let at = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) at += (lines[i]?.length ?? 0) + 1;
    at += Math.max(0, column - 1);
    this.area.focus();
    this.area.setSelectionRange(at, at + 1);
  }
}

/**
 * The code and the vertex shader as the page shows or sends them (`vertex` `""`: none).
 * @typedef {{code: string, vertex: string}} Sources
 */

/**
 * The sources of `preset`.
 * @param {Preset} preset
 * @returns {Sources}
 */
function sourcesOf(preset) {
  return { code: preset.code, vertex: preset.vertexCode ?? "" };
}

/** The editor's controls over its page's elements. */
export class EditorUi {
  #code = new CodeBox("code", "gutter");
  /** The preset's own vertex shader (ISF's `.vs`), in a section of its own. */
  #vertex = new CodeBox("vertex", "vertex-gutter");
  /** The preset shown (as the player last sent it). @type {Preset | null} */
  #shown = null;
  /**
   * The preset's sources the text in the boxes was typed over (an edit applied over another
   * one the page has not taken is refused): those last put in the boxes, or last applied.
   * @type {Sources}
   */
  #base = { code: "", vertex: "" };
  /**
   * The sources of the page's last edit sent and not answered yet: the next is typed over it.
   * @type {Sources | null}
   */
  #pending = null;

  /** Whether the code in the boxes is not the preset's (typed, not applied). */
  get isDirty() {
    if (this.#shown === null) return false;
    const { code, vertex } = sourcesOf(this.#shown);
    return this.#code.area.value !== code || this.#vertex.area.value !== vertex;
  }

  /**
   * Shows the problems of a refused edit (none: clears them), each marked in its box.
   * @param {Problem[]} problems
   */
  showProblems(problems, message = "") {
    const isVertex = (/** @type {Problem} */ p) => p.field === "vertexCode";
    this.#code.mark(problems.filter((p) => !isVertex(p)));
    this.#vertex.mark(problems.filter(isVertex));
    if (problems.some(isVertex)) {
      /** @type {HTMLDetailsElement} */ ($("vertex-section")).open = true;
    }
    const items = problems.map((p) => {
      const li = document.createElement("li");
      const where = isVertex(p) ? "vertex shader, line" : "line";
      li.textContent = `${where} ${p.line}, column ${p.column}: ${p.message}`;
      li.dataset.line = String(p.line);
      li.dataset.column = String(p.column);
      if (isVertex(p)) li.dataset.field = "vertexCode";
      li.onclick = () => (isVertex(p) ? this.#vertex : this.#code).select(p.line, p.column);
      return li;
    });
    if (problems.length === 0 && message) {
      const li = document.createElement("li");
      li.textContent = message;
      items.push(li);
    }
    $("problems").replaceChildren(...items);
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
      this.#takeShown();
      $("elsewhere").hidden = true;
      this.showProblems([]);
      // A preset with a vertex shader shows it; one without keeps the section folded.
      /** @type {HTMLDetailsElement} */ ($("vertex-section")).open = this.#base.vertex !== "";
    } else {
      const { code, vertex } = sourcesOf(preset);
      $("elsewhere").hidden = this.#code.area.value === code && this.#vertex.area.value === vertex;
    }
    this.#code.area.readOnly = preset.builtIn;
    this.#vertex.area.readOnly = preset.builtIn;
    $("params").replaceChildren(...preset.parameters.map((p) => control(p, send)));
    this.#code.renderGutter();
    this.#vertex.renderGutter();
  }

  /**
   * The answer to the page's own edit of the sources to `applied`: written, they are the base
   * of what is typed next, even before the preset comes back (Apply pressed again meanwhile).
   * @param {Sources} applied
   * @param {boolean} isOk
   */
  codeAnswered(applied, isOk) {
    if (isOk) this.#base = applied;
    const pending = this.#pending;
    const isPending = pending?.code === applied.code && pending.vertex === applied.vertex;
    if (!isOk || isPending) this.#pending = null;
  }

  /**
   * Wires the buttons and keys to `send`.
   * @param {SendEdit} send
   */
  wire(send) {
    const apply = () => {
      const base = this.#pending ?? this.#base;
      /** @type {Sources} */
      const typed = { code: this.#code.area.value, vertex: this.#vertex.area.value };
      send({
        type: "edit",
        code: typed.code,
        base: base.code,
        vertexCode: typed.vertex,
        vertexBase: base.vertex,
      });
      this.#pending = typed;
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
    this.#code.wire(apply);
    this.#vertex.wire(apply);
  }

  /** Puts the shown preset's sources in the boxes, as the base of what is typed next. */
  #takeShown() {
    if (!this.#shown) return;
    this.#base = sourcesOf(this.#shown);
    this.#code.area.value = this.#base.code;
    this.#vertex.area.value = this.#base.vertex;
    this.#pending = null;
    this.#code.renderGutter();
    this.#vertex.renderGutter();
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
