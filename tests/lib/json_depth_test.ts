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
