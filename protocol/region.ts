/**
 * The region of the Project's canvas one machine's output shows (a wide stage: several
 * machines, one per projector, each showing its part of one picture), declared once: its
 * crop rectangle in canvas fractions and its blend edges, as projector edge blending does.
 * The setting `outputRegion`, the action `OUTPUT_REGION`, `appState.outputRegion` and the
 * render state all take it from here (`docs/output.md`, "Wide stages").
 * @module
 */
import { z } from "zod";

/** The word for the whole canvas, no edges: the default. */
export const FULL_REGION_TEXT = "full";

/**
 * The projector gamma the edges are corrected for when none is given: the light of two
 * overlapping projectors, not their pixel values, sums to the picture's (a projector shows a
 * pixel value `v` as light `v^gamma`; 2.2 is sRGB's and most projectors' preset).
 */
export const DEFAULT_BLEND_GAMMA = 2.2;
/** The gamma's range: a projector's is 1.8 to 2.6; 1 blends the pixel values linearly. */
export const BLEND_GAMMA_RANGE = { min: 0.5, max: 4 } as const;

/** A slack for sums of decimal fractions (`0.3 + 0.7`) that land a hair past 1. */
const EPSILON = 1e-9;

/** The edge keys a region's text takes after its rectangle, and the gamma's. */
export const REGION_KEYS = ["left", "right", "top", "bottom", "gamma"] as const;

/** A region of the canvas and its blend edges. */
export const OutputRegion = z.strictObject({
  x: z.number().min(0).max(1).describe("Left side of the region, a fraction of the canvas width"),
  y: z.number().min(0).max(1).describe("Top of the region, a fraction of the canvas height"),
  width: z.number().gt(0).max(1).describe("Width of the region, a fraction of the canvas width"),
  height: z.number().gt(0).max(1).describe(
    "Height of the region, a fraction of the canvas height",
  ),
  left: z.number().min(0).max(1).describe(
    "Width of the left blend edge (dark at the border, full across it), a fraction of the region's width; 0: none",
  ),
  right: z.number().min(0).max(1).describe("Width of the right blend edge, as left"),
  top: z.number().min(0).max(1).describe("Height of the top blend edge, a fraction of the region"),
  bottom: z.number().min(0).max(1).describe("Height of the bottom blend edge, as top"),
  gamma: z.number().min(BLEND_GAMMA_RANGE.min).max(BLEND_GAMMA_RANGE.max).describe(
    "The projectors' gamma the edges are corrected for, so overlapping light sums to even brightness",
  ),
}).refine((r) => r.x + r.width <= 1 + EPSILON && r.y + r.height <= 1 + EPSILON, {
  error: "The region must lie on the canvas: x + width and y + height at most 1",
}).refine((r) => r.left + r.right <= 1 + EPSILON && r.top + r.bottom <= 1 + EPSILON, {
  error: "Opposite blend edges must sum to 1 or less",
});
/** A region of the canvas and its blend edges. */
export type OutputRegion = z.infer<typeof OutputRegion>;

/** The whole canvas, no edges. */
export const FULL_REGION: OutputRegion = Object.freeze({
  x: 0,
  y: 0,
  width: 1,
  height: 1,
  left: 0,
  right: 0,
  top: 0,
  bottom: 0,
  gamma: DEFAULT_BLEND_GAMMA,
});

/** Why a region's text is refused: stable codes, one per thing to change. */
export type RegionProblem =
  | "REGION_SYNTAX"
  | "REGION_NUMBER"
  | "REGION_OUTSIDE"
  | "REGION_EDGE"
  | "REGION_GAMMA"
  | "REGION_KEY";

/** A region's text refused: `code` is stable, the message says what to change. */
export class RegionError extends Error {
  /** What is wrong (`RegionProblem`). */
  readonly code: RegionProblem;

  /** The refusal `code` with its `message`. */
  constructor(code: RegionProblem, message: string) {
    super(message);
    this.name = "RegionError";
    this.code = code;
  }
}

/** What a region's refusals say is expected. */
const FORM = "expected `full`, or `x,y,width,height` in canvas fractions with optional " +
  "`;left=`, `;right=`, `;top=`, `;bottom=` edges (fractions of the region) and `;gamma=`, " +
  "e.g. `0,0,0.4,1;right=0.25`";

/** One number of the text, or the refusal naming where it was. */
function numberAt(text: string, what: string): number {
  const t = text.trim();
  const n = t === "" ? NaN : Number(t);
  if (!Number.isFinite(n)) {
    throw new RegionError("REGION_NUMBER", `The region's ${what} "${t}" is not a number: ${FORM}`);
  }
  return n;
}

/** The rectangle's four numbers, checked to lie on the canvas. */
function rectangle(text: string): Pick<OutputRegion, "x" | "y" | "width" | "height"> {
  const parts = text.split(",");
  if (parts.length !== 4) {
    throw new RegionError(
      "REGION_SYNTAX",
      `The region "${text.trim()}" has ${parts.length} number(s) where it needs 4: ${FORM}`,
    );
  }
  const [x, y, width, height] = (["x", "y", "width", "height"] as const).map((name, i) =>
    numberAt(parts[i]!, name)
  ) as [number, number, number, number];
  const outside = (side: string, at: number, size: number) =>
    new RegionError(
      "REGION_OUTSIDE",
      `The region's ${side} span ${at} to ${+(at + size).toFixed(6)} is not within the ` +
        `canvas (0 to 1): give ${
          side === "horizontal" ? "an x and a width" : "a y and a height"
        } from 0 whose sum is at most 1`,
    );
  if (x < 0 || width <= 0 || x + width > 1 + EPSILON) throw outside("horizontal", x, width);
  if (y < 0 || height <= 0 || y + height > 1 + EPSILON) throw outside("vertical", y, height);
  return { x, y, width: Math.min(width, 1 - x), height: Math.min(height, 1 - y) };
}

/** The `key=value` parts after the rectangle, checked. */
function edges(parts: string[]): Pick<OutputRegion, (typeof REGION_KEYS)[number]> {
  const found: Record<string, number> = {};
  for (const part of parts) {
    const [key = "", value, ...more] = part.split("=");
    const name = key.trim().toLowerCase();
    if (!(REGION_KEYS as readonly string[]).includes(name) || value === undefined || more.length) {
      throw new RegionError(
        "REGION_KEY",
        `The region's part "${part.trim()}" is not one of ${
          REGION_KEYS.map((k) => `${k}=N`).join(", ")
        }: ${FORM}`,
      );
    }
    if (name in found) {
      throw new RegionError("REGION_KEY", `The region gives ${name} twice: give it once`);
    }
    found[name] = numberAt(value, name);
  }
  const { left = 0, right = 0, top = 0, bottom = 0, gamma = DEFAULT_BLEND_GAMMA } = found;
  for (const [name, w] of Object.entries({ left, right, top, bottom })) {
    if (w < 0 || w > 1) {
      throw new RegionError(
        "REGION_EDGE",
        `The region's ${name} edge ${w} is not from 0 to 1: an edge is a fraction of the region (0.25: a quarter of it)`,
      );
    }
  }
  for (const [a, b, what] of [[left, right, "left and right"], [top, bottom, "top and bottom"]]) {
    if ((a as number) + (b as number) > 1 + EPSILON) {
      throw new RegionError(
        "REGION_EDGE",
        `The region's ${what} edges sum to ${
          (a as number) + (b as number)
        }, over the whole region: make them sum to 1 or less`,
      );
    }
  }
  if (gamma < BLEND_GAMMA_RANGE.min || gamma > BLEND_GAMMA_RANGE.max) {
    throw new RegionError(
      "REGION_GAMMA",
      `The region's gamma ${gamma} is not from ${BLEND_GAMMA_RANGE.min} to ${BLEND_GAMMA_RANGE.max}: give the projectors' gamma (${DEFAULT_BLEND_GAMMA} when unsure, 1 for a linear blend)`,
    );
  }
  return { left, right, top, bottom, gamma };
}

/**
 * Reads a region's text: `full`, or `x,y,width,height` (canvas fractions, y from the top)
 * then `;key=value` parts (`left`, `right`, `top`, `bottom`: blend edges as fractions of the
 * region; `gamma`: the projectors' gamma).
 * @throws {RegionError} with a stable code and a message saying what to change
 * @example
 * ```ts
 * parseRegion("0.6,0,0.4,1;left=0.25"); // the right third of a three-projector stage
 * ```
 */
export function parseRegion(text: string): OutputRegion {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === FULL_REGION_TEXT) return FULL_REGION;
  if (trimmed === "") throw new RegionError("REGION_SYNTAX", `The region is empty: ${FORM}`);
  const [rect = "", ...rest] = trimmed.split(";").filter((part, i) => i === 0 || part.trim());
  return { ...rectangle(rect), ...edges(rest) };
}

/** Whether `region` shows the whole canvas with no edges (drawn as before regions). */
export function isFullRegion(region: OutputRegion): boolean {
  return region.x === 0 && region.y === 0 && region.width === 1 && region.height === 1 &&
    region.left === 0 && region.right === 0 && region.top === 0 && region.bottom === 0;
}

/**
 * A region as its text (`parseRegion` reads it back the same): `full`, or the rectangle and
 * its edges other than 0, and the gamma when it is not the default and there are edges.
 */
export function regionText(region: OutputRegion): string {
  if (isFullRegion(region)) return FULL_REGION_TEXT;
  const { x, y, width, height, gamma } = region;
  const parts = [[x, y, width, height].join(",")];
  for (const key of ["left", "right", "top", "bottom"] as const) {
    if (region[key] > 0) parts.push(`${key}=${region[key]}`);
  }
  if (parts.length > 1 && gamma !== DEFAULT_BLEND_GAMMA) parts.push(`gamma=${gamma}`);
  return parts.join(";");
}

/** Whether `text` is a region's text `parseRegion` takes. */
export function isRegionText(text: unknown): boolean {
  if (typeof text !== "string") return false;
  try {
    parseRegion(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A zod schema of a region's text, normalized to its canonical text (`regionText`); a refusal's
 * issue message is the `RegionError`'s, its code in the issue's `params.code`.
 */
export const RegionText = z.string().transform((text, ctx) => {
  try {
    return regionText(parseRegion(text));
  } catch (error) {
    if (!(error instanceof RegionError)) throw error;
    ctx.addIssue({ code: "custom", message: error.message, params: { code: error.code } });
    return z.NEVER;
  }
});
