/**
 * Each page of a browser the player starts gets the start script before its
 * own scripts run (`SupervisorOptions.initScript`: the sockets' per-start
 * secret), and the output's page is navigated to over the pipe, so its
 * address is never on a command line. The page the browser started on
 * (`START_PAGE`), and each page the player opens (`openPage`: the editor's
 * window), is attached, given the script, then navigated: a script given to a
 * page already made runs from its next document on (measured: a target made
 * at its address and held at its start by the auto-attach ran its first
 * document without it). Pages a page opens are auto-attached and held until
 * they are given it.
 * @module
 */
import type { DevTools } from "./devtools.ts";
import { START_PAGE } from "./browser.ts";

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

/**
 * A new page (a window of its own with `newWindow`, its size in `bounds`) made on `START_PAGE`,
 * given `script`, navigated to `url`: its target id.
 */
export async function openPage(
  devtools: DevTools,
  url: string,
  options: { script: string | null; newWindow?: boolean; width?: number; height?: number },
): Promise<string> {
  const { script, ...where } = options;
  const { targetId } = await devtools.send<{ targetId: string }>(
    "Target.createTarget",
    { url: START_PAGE, ...where },
    { timeoutMs: START_WAIT_MS },
  );
  await navigate(devtools, targetId, url, script);
  return targetId;
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
  // No start page (none yet, or closed): a page of its own.
  if (!page) await openPage(devtools, url, { script });
  else await navigate(devtools, page.targetId, url, script);
}

/** The page `targetId`, given `script`, navigated to `url`. */
async function navigate(
  devtools: DevTools,
  targetId: string,
  url: string,
  script: string | null,
): Promise<void> {
  const { sessionId } = await devtools.send<{ sessionId: string }>(
    "Target.attachToTarget",
    { targetId, flatten: true },
    { timeoutMs: START_WAIT_MS },
  );
  await prepare(devtools, sessionId, script);
  // The session stays: a page's scripts go with the session that gave them.
  await devtools.send("Page.navigate", { url }, { sessionId, timeoutMs: START_WAIT_MS });
}

/** The page of `sessionId` gets `script` for each document it loads from now on. */
async function prepare(devtools: DevTools, sessionId: string, script: string | null) {
  if (script === null) return;
  // Without the Page domain on, the script is not kept across a navigation to another site.
  await devtools.send("Page.enable", {}, { sessionId, timeoutMs: START_WAIT_MS });
  await devtools.send("Page.addScriptToEvaluateOnNewDocument", { source: script }, {
    sessionId,
    timeoutMs: START_WAIT_MS,
  });
}
