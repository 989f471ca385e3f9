/**
 * The web remote takes the action rules it uses (a trigger's velocity) from the module the service
 * serves (`/remote/action_rules.js`, written from `protocol/action_rules.ts`), not from numbers
 * of its own: the served module and the velocity the page's gestures send follow `VELOCITY`.
 */
import assert from "node:assert/strict";
import { VELOCITY } from "../../../protocol/action_rules.ts";
import { REMOTE_PATHS, remotePage } from "../../../server/web/mod.ts";

const PAGE = new URL("../../../server/web/page/", import.meta.url);

/** The text the service serves at `path`. */
async function served(path: string): Promise<string> {
  const response = remotePage(new Request(`http://127.0.0.1${path}`));
  assert.ok(response, path);
  return await response.text();
}

Deno.test("web remote: /remote/action_rules.js serves protocol/action_rules.ts's VELOCITY", async () => {
  assert.ok(REMOTE_PATHS.includes("/remote/action_rules.js"));
  const text = await served("/remote/action_rules.js");
  const module = await import(`data:text/javascript,${encodeURIComponent(text)}`);
  assert.deepEqual(module.VELOCITY, { ...VELOCITY });
});

/** A press of a go button with `pressure`, as a touch: the velocity it fires with. */
// deno-lint-ignore no-explicit-any
function pressWith(gestures: any, pressure: number): number | undefined {
  let fired: number | undefined;
  const props = gestures.goProps((velocity: number | undefined) => (fired = velocity));
  const currentTarget = {};
  props.onPointerDown({ pointerType: "touch", currentTarget, pressure });
  props.onClick({ currentTarget });
  return fired;
}

Deno.test("web remote: a touch's velocity spans VELOCITY as served, never silent", async () => {
  // The page's gestures beside the served rules, as the browser loads them.
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/action_rules.js`, await served("/remote/action_rules.js"));
    await Deno.copyFile(new URL("gestures.js", PAGE), `${dir}/gestures.js`);
    const gestures = await import(`file://${dir}/gestures.js`);
    assert.equal(pressWith(gestures, 1), VELOCITY.max);
    assert.equal(pressWith(gestures, 0.001), VELOCITY.min + 1);
    assert.equal(pressWith(gestures, 0.5), undefined, "no pressure hardware");
    const page = await Deno.readTextFile(new URL("gestures.js", PAGE));
    assert.doesNotMatch(page, new RegExp(`\\b${VELOCITY.max}\\b`), "no velocity literal");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
