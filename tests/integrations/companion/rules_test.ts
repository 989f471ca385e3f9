/**
 * The Companion module takes the action rules (velocity, `base`, the fraction's range, the least
 * index) from the catalog (`rules`, written by `deno task companion:catalog` from
 * `protocol/action_rules.ts`), never from literals of its own that could drift from the service's.
 */
import assert from "node:assert/strict";
import { BASE, FRACTION, INDEX_MIN, VELOCITY } from "../../../protocol/action_rules.ts";
import { BASE_SHIFTED_ACTIONS, VELOCITY_ACTIONS } from "../../../protocol/actions.ts";
import { CATALOG_PATH } from "../../../integrations/companion/deno/catalog.ts";
import { ModuleHost } from "../../../integrations/companion/deno/host.ts";
import { needs } from "../../../tools/testing/peers.ts";

const SOURCES = new URL("../../../integrations/companion/src/", import.meta.url);

Deno.test("Companion catalog: its rules are protocol/action_rules.ts's", async () => {
  const { rules } = JSON.parse(await Deno.readTextFile(CATALOG_PATH));
  assert.deepEqual(rules, {
    velocity: { min: VELOCITY.min, max: VELOCITY.max, default: VELOCITY.default },
    base: { values: [...BASE.values], default: BASE.default, shifted: BASE.shifted },
    fraction: { min: FRACTION.min, max: FRACTION.max },
    indexMin: INDEX_MIN,
  });
});

/** A field of a Companion action definition. */
interface Field {
  id: string;
  min?: number;
  max?: number;
  default?: unknown;
  label: string;
}

/** The field `id` of the action `name`'s definition. */
function field(host: ModuleHost, name: string, id: string): Field {
  const found = host.actions[name]?.options.find((o: Field) => o.id === id);
  assert.ok(found, `${name}.${id}`);
  return found;
}

Deno.test(
  "Companion module: its inputs take the protocol's velocity, index and fraction",
  needs("node"),
  async () => {
    const host = await ModuleHost.start();
    try {
      // No service: the definitions come from the catalog alone.
      await host.init({ bonjour: null, host: "", httpPort: 1, wsPort: 1, pairingCode: "" });
      await host.until(() => host.actions.TRIGGER_CLIP_IN, "the action definitions");
      const velocity = field(host, [...VELOCITY_ACTIONS][0]!, "velocity");
      assert.deepEqual(
        [velocity.min, velocity.max, velocity.default],
        [VELOCITY.min, VELOCITY.max, VELOCITY.default],
      );
      assert.ok(velocity.label.includes(`${VELOCITY.min}-${VELOCITY.max}`), velocity.label);
      const shifted = field(host, "PLAY_CLIP_BY_INDEX_IN", "index");
      assert.ok(BASE_SHIFTED_ACTIONS.has("PLAY_CLIP_BY_INDEX_IN"));
      assert.deepEqual([shifted.min, shifted.default], [
        INDEX_MIN + BASE.shifted,
        INDEX_MIN + BASE.shifted,
      ]);
      const fraction = field(host, "SEEK_CLIP_IN", "percent");
      assert.deepEqual([fraction.min, fraction.max], [FRACTION.min, FRACTION.max]);
    } finally {
      await host.stop();
    }
  },
);

Deno.test("Companion module: no literal velocity in its sources (the catalog's rules)", async () => {
  const literal = new RegExp(`\\b${VELOCITY.max}\\b(?!\\.0\\.0\\.1)`);
  for await (const entry of Deno.readDir(SOURCES)) {
    if (!entry.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(new URL(entry.name, SOURCES));
    for (const line of text.split("\n")) {
      assert.doesNotMatch(line, literal, `${entry.name}: ${line.trim()}`);
    }
  }
});
