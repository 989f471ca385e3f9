/**
 * `deno task permissions`: writes deno.json's `start`, `test` and `compile`
 * tasks from the one list of the service's flags (`server/deploy/permissions.ts`).
 * @module
 */
import { serviceTasks } from "../server/deploy/permissions.ts";

if (import.meta.main) {
  const url = new URL("../deno.json", import.meta.url);
  const config = JSON.parse(await Deno.readTextFile(url));
  Object.assign(config.tasks, serviceTasks());
  await Deno.writeTextFile(url, JSON.stringify(config, null, 2) + "\n");
  console.log("deno.json: start, test and compile tasks written from server/deploy/permissions.ts");
}
