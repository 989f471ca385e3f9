/**
 * A stand-in for the check's process that starts and then makes no progress
 * at all (a checker's fault): it reads its request, never reports, never answers.
 * @module
 */
await Deno.stdin.readable.getReader().read();
// Alive and silent until it is ended.
await new Promise((resolve) => setTimeout(resolve, 2 ** 30));
