/** Randomised inputs that repeat: a test seeded the same reads the same numbers. */

/**
 * A small deterministic generator of numbers in [0, 1) (a linear congruential one): the same
 * `seed` gives the same sequence, so a failing input can be replayed.
 */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}
