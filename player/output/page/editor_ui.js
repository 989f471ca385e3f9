// The editor window's controls: the code (a plain textarea with line numbers), the preset's
// parameters as controls, the problems of a refused edit at their lines. It keeps no preset
// of its own: it shows what the player sends and hands each change to `send` as an edit.

const $ = (id) => document.getElementById(id);
const code = $("code");
const gutter = $("gutter");

/** The preset shown (as the player last sent it). */
let shown = null;
/**
 * The preset's code the text in the box was typed over (an edit applied over another one
 * the page has not taken is refused): the code last put in the box, or last applied from it.
 */
let base = "";
let errorLines = new Set();

function renderGutter() {
  const count = code.value.split("\n").length;
  gutter.replaceChildren(
    ...Array.from({ length: count }, (_, i) => {
      const line = document.createElement("span");
      line.textContent = `${i + 1}\n`;
      if (errorLines.has(i + 1)) line.className = "error";
      return line;
    }),
  );
  gutter.scrollTop = code.scrollTop;
}

/** Whether the code in the box is not the preset's (typed, not applied). */
export function isDirty() {
  return shown !== null && code.value !== shown.code;
}

/** Selects line `line`, column `column` (1-based) of the code. */
function select(line, column) {
  const lines = code.value.split("\n");
  let at = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
  at += Math.max(0, column - 1);
  code.focus();
  code.setSelectionRange(at, at + 1);
}

/** Shows the problems of a refused edit (none: clears them). */
export function showProblems(problems, message = "") {
  errorLines = new Set(problems.map((p) => p.line));
  const items = problems.map((p) => {
    const li = document.createElement("li");
    li.textContent = `line ${p.line}, column ${p.column}: ${p.message}`;
    li.dataset.line = String(p.line);
    li.dataset.column = String(p.column);
    li.onclick = () => select(p.line, p.column);
    return li;
  });
  if (problems.length === 0 && message) {
    const li = document.createElement("li");
    li.textContent = message;
    items.push(li);
  }
  $("problems").replaceChildren(...items);
  renderGutter();
}

/** The status line: `state` is `done`, `refused` or `busy`. */
export function setStatus(state, text) {
  $("status").dataset.state = state;
  $("status").textContent = text;
}

/** A note under the preview (why there is none, what its GL said). */
export function setPreviewNote(text) {
  $("preview-note").textContent = text;
}

function control(parameter, send) {
  const label = document.createElement("label");
  const name = document.createElement("span");
  name.textContent = parameter.name;
  const value = document.createElement("output");
  let input;
  if (parameter.type === "enum") {
    input = document.createElement("select");
    for (const option of parameter.options ?? []) input.add(new Option(option, option));
    input.value = String(parameter.default);
  } else {
    input = document.createElement("input");
    if (parameter.type === "boolean") {
      input.type = "checkbox";
      input.checked = parameter.default === true;
    } else if (parameter.type === "color") {
      input.type = "color";
      input.value = String(parameter.default);
    } else {
      const isRange = parameter.min !== undefined && parameter.max !== undefined;
      input.type = isRange ? "range" : "number";
      if (isRange) {
        input.min = String(parameter.min);
        input.max = String(parameter.max);
        input.step = String((parameter.max - parameter.min) / 1000 || "any");
      } else input.step = "any";
      input.value = String(parameter.default);
      value.textContent = String(parameter.default);
      input.oninput = () => value.textContent = input.value;
    }
  }
  input.dataset.param = parameter.name;
  input.name = parameter.name;
  // A control writes when let go (`change`), not at each step of a drag: one edit, one undo.
  input.onchange = () => {
    const v = parameter.type === "boolean"
      ? input.checked
      : parameter.type === "number"
      ? Number(input.value)
      : input.value;
    send({ type: "param", name: parameter.name, value: v });
  };
  label.append(name, input, value);
  return label;
}

/** Shows `preset` as the player sent it; the code typed and not applied is kept. */
export function showPreset(preset, send) {
  const wasDirty = isDirty();
  const isSame = shown?.id === preset.id;
  shown = preset;
  document.title = `${preset.name}: Cueport preset editor`;
  $("name").textContent = preset.name;
  $("kind").textContent = `${preset.kind} preset ${preset.id} (${preset.type}${
    preset.builtIn ? ", built in: read only" : ""
  })`;
  if (!wasDirty || !isSame) {
    code.value = preset.code;
    base = preset.code;
    $("elsewhere").hidden = true;
    showProblems([]);
  } else $("elsewhere").hidden = code.value === preset.code;
  code.readOnly = preset.builtIn;
  $("params").replaceChildren(...preset.parameters.map((p) => control(p, send)));
  renderGutter();
}

/** The code of the page's last edit sent and not answered yet: the next is typed over it. */
let pending = null;

/**
 * The answer to the page's own edit of the code to `applied`: written, it is the base of what
 * is typed next, even before the preset's new code comes back (Apply pressed again meanwhile).
 */
export function codeAnswered(applied, isOk) {
  if (isOk) base = applied;
  if (!isOk || pending === applied) pending = null;
}

/** Puts the shown preset's code in the box, as the base of what is typed next. */
function takeShown() {
  if (!shown) return;
  code.value = shown.code;
  base = shown.code;
  pending = null;
}

/** Wires the buttons and keys to `send` (edit messages without their id). */
export function wire(send) {
  const apply = () => {
    send({ type: "edit", code: code.value, base: pending ?? base });
    pending = code.value;
  };
  $("apply").onclick = apply;
  $("undo").onclick = () => send({ type: "history", direction: "undo" });
  $("redo").onclick = () => send({ type: "history", direction: "redo" });
  $("revert").onclick = () => {
    takeShown();
    showProblems([]);
  };
  $("take").onclick = () => {
    takeShown();
    $("elsewhere").hidden = true;
    showProblems([]);
  };
  $("params").onsubmit = (event) => event.preventDefault();
  code.addEventListener("input", renderGutter);
  code.addEventListener("scroll", () => gutter.scrollTop = code.scrollTop);
  code.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      apply();
    } else if (event.key === "Tab") {
      event.preventDefault();
      code.setRangeText("  ", code.selectionStart, code.selectionEnd, "end");
      renderGutter();
    }
  });
}
