/**
 * A stand-in for the check's process that answers a JSON object of no kind the protocol
 * has (neither a result, progress, nor the ceiling's message), then ends.
 * @module
 */
await Deno.stdin.readable.getReader().read();
console.log(JSON.stringify({ unexpected: true }));
