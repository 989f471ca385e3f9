import assert from "node:assert/strict";
import { permissionRefusal } from "../../../server/deploy/permission_refused.ts";

Deno.test("permissionRefusal() names the flag, and leaves other errors alone", () => {
  const env = new Deno.errors.NotCapable(
    'Requires env access to "LANG", run again with the --allow-env flag',
  );
  assert.equal(
    permissionRefusal(env),
    'Permission refused: env access to "LANG" is not granted by --allow-env in this build (docs/deployment.md, "Permissions")',
  );
  assert.equal(permissionRefusal(new Error("boom")), null);
});
