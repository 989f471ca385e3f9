/**
 * The rules of actions (spec section 4.3) that more than one place checks or
 * describes, each declared once: the velocity range and its default, `base`,
 * the ranges of the parameter kinds. Which actions take velocity or `base` is
 * declared on each action of the catalog (`protocol/actions.ts`). The service's
 * check (`server/core/action_rules.ts`), the MCP tools, the views, the player's
 * defaults and the Companion generator derive from these; none repeats a number.
 * @module
 */
import { z } from "zod";

/** A trigger's velocity: MIDI's 0-127; a request without one plays at full velocity. */
export const VELOCITY = { min: 0, max: 127, default: 127 } as const;

/** The velocity range as the docs and messages write it: `0-127`. */
export const VELOCITY_RANGE = `${VELOCITY.min}-${VELOCITY.max}`;

/** The check of a velocity: an integer of the range (`message` for each refusal, when given). */
export function velocitySchema(message?: string): z.ZodNumber {
  const error = message === undefined ? {} : { error: message };
  return z.number(error).int(error).min(VELOCITY.min, error).max(VELOCITY.max, error);
}

/**
 * The same check, plain, for the hot path's yes (the service's body check, the player's door):
 * `velocitySchema` words a refusal; the two agree on every value (tests/protocol/action_rules_test.ts).
 */
export function isVelocity(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= VELOCITY.min &&
    (value as number) <= VELOCITY.max;
}

/**
 * `base`: 0 counts positions from 0 (the default); 1 counts them from 1 and
 * shifts the first param of the positional actions down by one.
 */
export const BASE = { values: [0, 1], default: 0, shifted: 1 } as const;

/** The check of a `base` (`message` for a refusal, when given). */
export function baseSchema(message?: string): z.ZodType<0 | 1> {
  const error = message === undefined ? {} : { error: message };
  return z.union([z.literal(BASE.values[0]), z.literal(BASE.values[1])], error);
}

/** A `fraction` param (a position through a Clip, a Song, the list; a level): 0.0 to 1.0. */
export const FRACTION = { min: 0, max: 1 } as const;

/**
 * A `number` param (a Control's value, a Target's): conventionally in the fraction's range, and
 * not clamped to it (the specification: "Values are conventionally 0.0 to 1.0 and are not
 * clamped by these actions"). What a client may offer as its control's range.
 */
export const NUMBER_CONVENTION = FRACTION;

/** A range as messages write it: `0.0 to 1.0`. */
function rangeText(range: { readonly min: number; readonly max: number }): string {
  return `${range.min.toFixed(1)} to ${range.max.toFixed(1)}`;
}

/** The fraction range as messages write it: `0.0 to 1.0`. */
export const FRACTION_RANGE = rangeText(FRACTION);

/** A number's conventional range as messages write it (`NUMBER_CONVENTION`). */
export const NUMBER_RANGE = rangeText(NUMBER_CONVENTION);

/**
 * A `boolean` param as text (an OSC string, a query): these words, any case, pairwise (`true` and
 * `false`, `1` and `0`, ...).
 */
export const BOOLEAN_WORDS = {
  true: ["true", "1", "yes", "on"],
  false: ["false", "0", "no", "off"],
} as const;

/** The boolean words as texts write them: `true/false, 1/0, yes/no, on/off`. */
export const BOOLEAN_TEXT = BOOLEAN_WORDS.true.map((w, i) => `${w}/${BOOLEAN_WORDS.false[i]}`)
  .join(", ");

/** An `index` param (a position, after the `base` shift): an integer from 0. */
export const INDEX_MIN = 0;

/** The Control letters, `A` to `Z`: the one declaration of which Controls there are. */
export const CONTROL_IDS: readonly string[] = Array.from(
  { length: 26 },
  (_, i) => String.fromCharCode(65 + i),
);

/** The Control letters as texts write them: `A-Z`. */
export const CONTROL_SPAN = `${CONTROL_IDS[0]}-${CONTROL_IDS[CONTROL_IDS.length - 1]}`;

/** A `control` param on the wire: one letter, either case (the service upper-cases it). */
export const CONTROL_LETTER = new RegExp(`^[${CONTROL_SPAN}${CONTROL_SPAN.toLowerCase()}]$`);

/** A `control` param as it crosses to the player, and a Control's id: one upper-case letter. */
export const CONTROL_NORMALIZED = new RegExp(`^[${CONTROL_SPAN}]$`);

/** Target syntax: `clip:<clipId>/<parameter>`. */
export const TARGET_PATTERN = /^clip:([A-Za-z0-9_-]{1,64})\/([A-Za-z][A-Za-z0-9_.-]{0,63})$/;

/** The values of the enumerated kinds, in their normalized spelling. */
export const DIRECTIONS = ["forward", "backward"] as const;
/** `RECORD_TOGGLE`'s modes. */
export const RECORD_MODES = ["now", "next-trigger"] as const;
/** `OUTPUT_DISPLAY`'s word for the primary display (what an empty `outputDisplay` means). */
export const PRIMARY_DISPLAY = "primary";

/**
 * `OPEN_EDITOR`'s kinds: `protocol/model.ts` PresetKind but `transition` and `generator` (the
 * editor's preview draws one look over a picture; docs/presets.md "The editor window").
 */
export const PRESET_KINDS = ["effect", "visualizer"] as const;
