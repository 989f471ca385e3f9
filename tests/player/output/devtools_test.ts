/** The output's DevTools use finds the output page's own target, not the editor's beside it. */
import assert from "node:assert/strict";
import { pageAt } from "../../../player/output/devtools.ts";

Deno.test("pageAt: the page at the address itself, not another page under its path", () => {
  const url = "http://127.0.0.1:4321/0123abcd/";
  const editor = { targetId: "e", url: `${url}editor.html` };
  const output = { targetId: "o", url };
  assert.equal(pageAt([editor, output], url), output);
  assert.equal(pageAt([editor, { targetId: "q", url: `${url}?x=1` }], url)?.targetId, "q");
  assert.equal(pageAt([editor], url), null);
  assert.equal(pageAt([editor, output], `${url}editor.html`), editor);
});
