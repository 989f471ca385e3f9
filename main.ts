import { runPlayerStdio } from "./player/mod.ts";
if (Deno.args[0] === "player") await runPlayerStdio(Deno.args.slice(1));
