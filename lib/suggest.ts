/**
 * "Did you mean": the nearest known name to a near miss, for error messages
 * (an action name in the wrong case, a config key with a typo). Edit distance
 * from `fastest-levenshtein`.
 * @module
 */
import { distance } from "fastest-levenshtein";

/**
 * The known name nearest to `name`, when it is near: the same name in another
 * case or spelling (`play_in`, `PlayIn`), or at most 2 edits away (and less
 * than a third of the name). Undefined when nothing is near.
 */
export function nearest(name: string, known: Iterable<string>): string | undefined {
  const plain = (s: string) => s.toLowerCase().replace(/[-_\s]/g, "");
  let best: { name: string; d: number } | undefined;
  for (const candidate of known) {
    if (plain(candidate) === plain(name)) return candidate;
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d <= 2 && d < name.length / 3 && (!best || d < best.d)) best = { name: candidate, d };
  }
  return best?.name;
}

/** ` (did you mean "X"?)` for a near miss, else "". */
export function didYouMean(name: string, known: Iterable<string>): string {
  const near = nearest(name, known);
  return near ? ` (did you mean "${near}"?)` : "";
}
