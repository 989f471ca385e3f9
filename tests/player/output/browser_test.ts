import assert from "node:assert/strict";
import {
  browserArgs,
  browserCandidates,
  findBrowser,
  hasDisplay,
} from "../../../player/output/browser.ts";
import { startOutput } from "../../../player/output/mod.ts";
import { VirtualClock } from "../../../player/clock.ts";

async function withEnv(vars: Record<string, string | undefined>, fn: () => Promise<void> | void) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, Deno.env.get(k)]));
  const put = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
    }
  };
  put(vars);
  try {
    await fn();
  } finally {
    put(saved);
  }
}

Deno.test("findBrowser() takes the first Chromium-family browser on the PATH", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/google-chrome`, "");
    await withEnv({ PATH: `/nonexistent:${dir}` }, () => {
      assert.equal(findBrowser(), `${dir}/google-chrome`);
      assert.equal(findBrowser(`${dir}/none`), null, "a named browser that is not there");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("browserCandidates() looks where macOS and Windows install browsers", async () => {
  await withEnv({ PATH: "", PROGRAMFILES: "C:\\Program Files" }, () => {
    assert.ok(
      browserCandidates("darwin").includes(
        "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
      ),
    );
    assert.ok(
      browserCandidates("windows").includes(
        "C:\\Program Files\\Microsoft\\Edge\\Application\\msedge.exe",
      ),
    );
  });
});

Deno.test("hasDisplay() needs DISPLAY or WAYLAND_DISPLAY on Linux only", async () => {
  await withEnv({ DISPLAY: undefined, WAYLAND_DISPLAY: undefined }, () => {
    assert.equal(hasDisplay("linux"), false);
    assert.equal(hasDisplay("darwin"), true);
    assert.equal(hasDisplay("windows"), true);
  });
  await withEnv({ DISPLAY: undefined, WAYLAND_DISPLAY: "wayland-0" }, () => {
    assert.equal(hasDisplay("linux"), true);
  });
});

Deno.test("browserArgs() opens an app window, kiosk for full screen, or headless with software GL", () => {
  const pageUrl = "http://127.0.0.1:4321/0123abcd/";
  const options = { profileDir: "/tmp/p", pageUrl, width: 1920, height: 1080 };
  const window = browserArgs("window", options);
  // The page's address (its secret path) is navigated to over the pipe.
  assert.ok(window.includes("--app=http://127.0.0.1:4321/"), "the server's root");
  assert.ok(window.includes("--user-data-dir=/tmp/p"));
  assert.ok(browserArgs("fullscreen", options).includes("--kiosk"));
  const headless = browserArgs("headless", options);
  assert.ok(headless.includes("--headless=new"));
  assert.ok(headless.includes("--use-angle=swiftshader"));
  assert.equal(headless.at(-1), "about:blank");
  for (const args of [window, headless]) {
    assert.ok(args.includes("--remote-debugging-pipe"), "DevTools on the pipe");
    assert.ok(!args.some((a) => a.startsWith("--remote-debugging-port")), "no port");
    assert.ok(!args.includes("--no-sandbox"), "the sandbox on, headless too");
    assert.ok(!args.some((a) => a.includes("0123abcd")), "no address of the page");
  }
  assert.ok(browserArgs("window", { ...options, isSandboxOff: true }).includes("--no-sandbox"));
  assert.ok(
    browserArgs("window", { ...options, width: 160, height: 90 }).includes(
      "--window-size=640,360",
    ),
    "headless Chromium draws a smaller window once a second",
  );
  // Nobody sees a headless window: the browser's copy of the canvas into it costs by its size
  // (64 against 34 ms of CPU a 1080p frame of the demo show at scale 0.35).
  assert.ok(headless.includes("--window-size=640,360"), "headless: the smallest window");
  assert.ok(window.includes("--window-size=1920,1080"), "a window: the display's size");
});

Deno.test("startOutput() says in one INFO line why there is no output", async () => {
  const options = {
    browser: null,
    clock: new VirtualClock(),
    clockRate: 0,
    source: () => null,
    media: () => null,
  };
  const lines: string[] = [];
  const log = (level: string, message: string) => lines.push(`${level}: ${message}`);
  assert.equal(startOutput({ ...options, mode: "none", log }), null);
  assert.equal(lines.length, 0, "none is asked for: nothing to say");
  await withEnv({ DISPLAY: undefined, WAYLAND_DISPLAY: undefined }, () => {
    assert.equal(startOutput({ ...options, mode: "auto", log }), null);
  });
  assert.equal(
    startOutput({ ...options, mode: "headless", browser: "/no/such/chrome", log }),
    null,
  );
  await withEnv({ PATH: "/nonexistent", DISPLAY: ":0" }, () => {
    if (findBrowser() === null) assert.equal(startOutput({ ...options, mode: "auto", log }), null);
  });
  assert.match(
    lines[0]!,
    /^info: Output: none \(no display: DISPLAY and WAYLAND_DISPLAY are unset\)$/,
  );
  assert.match(lines[1]!, /^info: Output: none \(the browser \/no\/such\/chrome does not exist\)$/);
  assert.ok(lines.every((l) => l.startsWith("info: Output: none (")), lines.join("\n"));
});
