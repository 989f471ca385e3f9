/**
 * The command line of `deno task reliability`:
 *
 * ```sh
 * deno task reliability                 # the short suite (CI, under 3 minutes)
 * deno task reliability --full          # the numbers for notes (10^5 inputs per transport)
 * deno task reliability --only http_fuzz,player_kill --seed 7
 * deno task reliability --json          # the rows as JSON (tests read this)
 * ```
 *
 * Prints one table; exits 1 when any target is missed, 2 on a usage error.
 * @module
 */
import { parseArgs } from "node:util";
import { formatTable, killAll, missedTargets, PROBES, runProbes } from "./mod.ts";

const USAGE =
  `Usage: deno task reliability [--short | --full] [--seed N] [--only PROBE[,PROBE]] [--json]
Probes: ${PROBES.map((p) => p.name).join(", ")}`;

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      seed: { type: "string" },
      short: { type: "boolean", default: false },
      full: { type: "boolean", default: false },
      only: { type: "string", multiple: true, default: [] },
      json: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.short && values.full) throw new RangeError("Choose one of --short and --full");
  const seed = values.seed === undefined
    ? crypto.getRandomValues(new Uint32Array(1))[0]!
    : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(
      `Invalid --seed "${values.seed}": must be an integer from 0 to 4294967295`,
    );
  }
  const mode = values.full ? "full" : "short";
  const only = values.only.flatMap((o) => o.split(",")).map((o) => o.trim()).filter(Boolean);
  const log = (message: string) => console.error(`[reliability] ${message}`);
  log(`${mode} run, seed ${seed} (replay with --seed ${seed})`);
  const results = await runProbes({ seed, mode, only, log });
  if (values.json) console.log(JSON.stringify({ seed, mode, results }, null, 2));
  else console.log(formatTable(results, { seed, mode }));
  return results.some((r) => missedTargets(r).length > 0) ? 1 : 0;
}

if (import.meta.main) {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => {
      killAll(); // no service or player outlives an interrupted run
      Deno.exit(130);
    });
  }
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (error) {
    console.error(`reliability: ${(error as Error).message}\n\n${USAGE}`);
    code = 2;
  }
  // Sockets a probe left to the kernel (TIME_WAIT, half-closed) must not keep the process up.
  Deno.exit(code);
}
