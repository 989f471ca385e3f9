import assert from "node:assert/strict";
import { isNestedDeeper } from "../../lib/json_depth.ts";

Deno.test("isNestedDeeper() counts arrays and objects, not brackets inside strings", () => {
  assert.equal(isNestedDeeper('{"a": [[1]]}', 3), false);
  assert.equal(isNestedDeeper('{"a": [[[1]]]}', 3), true);
  assert.equal(isNestedDeeper('{"a": "[[[[[[[["}', 2), false);
  assert.equal(isNestedDeeper('{"a": "\\"[[[[", "b": [1]}', 2), false);
  assert.equal(isNestedDeeper('{"a": "\\\\", "b": [[[1]]]}', 3), true);
  assert.equal(isNestedDeeper("[".repeat(10_000), 64), true);
});

Deno.test("isNestedDeeper() takes many shallow values for what they are, and finds depth among them", () => {
  const shallow = JSON.stringify(Array.from({ length: 600 }, () => ({ params: ["A", 0.5] })));
  assert.equal(isNestedDeeper(shallow, 3), false); // 1,201 openings, three levels
  assert.equal(isNestedDeeper(shallow, 2), true);
  // Few openings, all of them nested: the count alone bounds it.
  assert.equal(isNestedDeeper("[[[[1]]]]", 4), false);
  assert.equal(isNestedDeeper("[[[[1]]]]", 3), true);
  // Openings inside strings count toward the bound, not toward the depth.
  assert.equal(isNestedDeeper(`{"a": "${"[".repeat(50)}"}`, 2), false);
});
