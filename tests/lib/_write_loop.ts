// Rewrites a project document in a loop until killed; prints each revision written.
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import { fixtureProject } from "../../tools/testing/fixture.ts";

const path = Deno.args[0]!;
const project = fixtureProject();
const filler = "x".repeat(200_000); // big enough that a write takes a while
for (let revision = 1;; revision++) {
  await writeJsonAtomic(path, { ...project, revision, name: `rev ${revision} ${filler}` });
  console.log(revision);
}
