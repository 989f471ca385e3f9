/**
 * Ids of new Projects: made from a name as a slug that `Id` (`protocol/model.ts`) accepts,
 * with `-2`, `-3` ... when taken.
 * @module
 */

/** The longest slug: room is left for a `-<n>` suffix within Id's 64 characters. */
const MAX_SLUG = 56;

/**
 * The id a name suggests: lowercase ASCII letters, digits, `-` and `_` (accents dropped, any
 * other run of characters one `-`); "project" when nothing is left.
 * @example projectSlug("Tour 2026: Caf\u00e9") // "tour-2026-cafe"
 */
export function projectSlug(name: string): string {
  const slug = name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, MAX_SLUG)
    .replace(/-+$/, "");
  return slug || "project";
}

/** `base`, or the first of `base-2`, `base-3` ... that `isTaken` does not refuse. */
export async function freeId(
  base: string,
  isTaken: (id: string) => boolean | Promise<boolean>,
): Promise<string> {
  if (!(await isTaken(base))) return base;
  const stem = base.slice(0, MAX_SLUG);
  for (let n = 2;; n++) {
    const id = `${stem}-${n}`;
    if (!(await isTaken(id))) return id;
  }
}
