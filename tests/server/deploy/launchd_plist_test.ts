import assert from "node:assert/strict";
import { parse } from "plist";
import {
  LAUNCHD_LABEL,
  launchdPlaces,
  launchdPlist,
  plistPath,
} from "../../../server/deploy/launchd_plist.ts";

Deno.test("the LaunchDaemon parses as a property list with its keys", () => {
  const places = launchdPlaces(false, "/Users/show");
  const xml = launchdPlist({
    command: ["/usr/local/bin/cueport"],
    isUser: false,
    ...places,
    userName: "show",
  });
  assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<!DOCTYPE plist/);
  const job = parse(xml) as Record<string, unknown>;
  assert.deepEqual(job, {
    Label: LAUNCHD_LABEL,
    ProgramArguments: [
      "/usr/local/bin/cueport",
      "serve",
      "--data-dir",
      "/Library/Application Support/Cueport",
      "--config",
      "/Library/Application Support/Cueport/config.json",
    ],
    RunAtLoad: true,
    KeepAlive: { SuccessfulExit: false },
    ThrottleInterval: 5,
    ProcessType: "Interactive",
    WorkingDirectory: "/Library/Application Support/Cueport",
    StandardOutPath: "/Library/Logs/Cueport/cueport.log",
    StandardErrorPath: "/Library/Logs/Cueport/cueport.log",
    UserName: "show",
  });
  assert.equal(plistPath(false, "/Users/show"), `/Library/LaunchDaemons/${LAUNCHD_LABEL}.plist`);
});

Deno.test("a LaunchAgent lives in the user's Library and has no UserName", () => {
  const places = launchdPlaces(true, "/Users/show");
  const job = parse(
    launchdPlist({ command: ["/a & b/cueport"], isUser: true, ...places, userName: "x" }),
  ) as Record<string, unknown>;
  assert.equal(job.UserName, undefined);
  assert.equal((job.ProgramArguments as string[])[0], "/a & b/cueport", "escaped and read back");
  assert.equal(job.StandardErrorPath, "/Users/show/Library/Logs/Cueport/cueport.log");
  assert.equal(
    plistPath(true, "/Users/show"),
    `/Users/show/Library/LaunchAgents/${LAUNCHD_LABEL}.plist`,
  );
});
