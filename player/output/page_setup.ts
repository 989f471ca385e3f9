/**
 * Each page of a browser the player starts gets the start script before its
 * own scripts run (`SupervisorOptions.initScript`: the sockets' per-start
 * secret), and the output's page is navigated to over the pipe, so its
 * address is never on a command line. The browser auto-attaches to every new
 * page and holds it until it is given the script (`waitForDebuggerOnStart`);
 * the page the browser started on (`START_PAGE`) is attached, given the
 * script, then navigated.
 * @module
 */
import type { DevTools } from "./devtools.ts";

/** A target as DevTools describes it. */
interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

/** How long the browser may take to answer while it starts (a loaded machine, software GL). */
const START_WAIT_MS = 15_000;

/** Gives every page of the browser `script` (null: none) before its own scripts. */
export async function giveScriptToPages(devtools: DevTools, script: string | null): Promise<void> {
  devtools.on("Target.attachedToTarget", (params) => {
    const sessionId = String(params.sessionId);
    const info = params.targetInfo as TargetInfo;
    const isWaiting = params.waitingForDebugger === true;
    void prepare(devtools, sessionId, info.type === "page" ? script : null)
      .finally(() =>
        isWaiting
          ? devtools.send("Runtime.runIfWaitingForDebugger", {}, { sessionId }).catch(() => {})
          : undefined
      )
      .catch(() => {}); // a page closed meanwhile, or the browser is gone
  });
  await devtools.send("Target.setAutoAttach", {
    autoAttach: true,
    waitForDebuggerOnStart: true,
    flatten: true,
  }, { timeoutMs: START_WAIT_MS });
}

/** The first page of a browser just started, given `script`, navigated to `url`. */
export async function showPage(
  devtools: DevTools,
  url: string,
  script: string | null,
): Promise<void> {
  const { targetInfos } = await devtools.send<{ targetInfos: TargetInfo[] }>(
    "Target.getTargets",
    {},
    { timeoutMs: START_WAIT_MS },
  );
  const page = targetInfos.find((t) => t.type === "page");
  if (!page) {
    // No start page (none yet, or closed): a page of its own, attached at its start.
    await devtools.send("Target.createTarget", { url }, { timeoutMs: START_WAIT_MS });
    return;
  }
  const { sessionId } = await devtools.send<{ sessionId: string }>(
    "Target.attachToTarget",
    { targetId: page.targetId, flatten: true },
    { timeoutMs: START_WAIT_MS },
  );
  await prepare(devtools, sessionId, script);
  // The session stays: a page's scripts go with the session that gave them.
  await devtools.send("Page.navigate", { url }, { sessionId, timeoutMs: START_WAIT_MS });
}

/** The page of `sessionId` gets `script` for each document it loads from now on. */
async function prepare(devtools: DevTools, sessionId: string, script: string | null) {
  if (script === null) return;
  await devtools.send("Page.addScriptToEvaluateOnNewDocument", { source: script }, {
    sessionId,
    timeoutMs: START_WAIT_MS,
  });
}
