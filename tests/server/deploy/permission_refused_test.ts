import assert from "node:assert/strict";
import { folderProblem, permissionRefusal } from "../../../server/deploy/permission_refused.ts";

Deno.test("folderProblem() tells a system folder from a folder that can be made writable", () => {
  const system = new Deno.errors.NotCapable(
    'Requires all access to "/proc/cueport", run again with the --allow-all flag',
  );
  assert.deepEqual(folderProblem(system), {
    reason: "cannot create it: /proc is a system folder, closed to Cueport",
    canMakeWritable: false,
  });
  const denied = new Deno.errors.PermissionDenied(
    "Permission denied (os error 13): mkdir '/srv/show'",
  );
  assert.deepEqual(folderProblem(denied), {
    reason: "Permission denied (os error 13): mkdir '/srv/show'",
    canMakeWritable: true,
  });
});

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
