import assert from "node:assert/strict";
import { runGroupCommand } from "../../../server/rigs/group_command.ts";
import { checkConfigText, runConfigCommand } from "../../../server/deploy/config_check.ts";
import { defaultConfigPath, loadSettings } from "../../../server/config.ts";
import { SETTINGS } from "../../../protocol/settings.ts";

async function withFile(text: string, fn: (path: string) => Promise<void>): Promise<void> {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(path, text);
    await fn(path);
  } finally {
    await Deno.remove(path);
  }
}

async function check(args: string[], env: Record<string, string> = {}) {
  const lines: string[] = [];
  const code = await runConfigCommand(args, (line) => lines.push(line), (n) => env[n]);
  return { code, lines };
}

Deno.test("config check: a good file is OK", async () => {
  await withFile(
    JSON.stringify({ httpPort: 8080, logFormat: "json", host: ["127.0.0.1"] }),
    async (path) => {
      const { code, lines } = await check(["check", path]);
      assert.equal(code, 0);
      assert.deepEqual(lines, [`${path}: OK (3 settings)`]);
    },
  );
});

Deno.test("config check: every bad key with its reason, exit 1", async () => {
  const text = JSON.stringify({
    httpPort: 99999,
    logLevle: "debug",
    approval: "maybe",
    plan: "pro",
  });
  await withFile(text, async (path) => {
    const { code, lines } = await check(["check", path]);
    assert.equal(code, 1);
    assert.equal(lines.length, 3, lines.join("\n"));
    assert.match(lines[0]!, /"httpPort": expected a whole number from 0 to 65535 \(given 99999\)/);
    assert.match(lines[1]!, /"logLevle": unknown setting \(did you mean "logLevel"\?\)/);
    assert.match(lines[2]!, /"approval": .*"approve".*\(given "maybe"\)/);
  });
});

Deno.test("config check: a bad value of a union setting names the accepted values", () => {
  assert.deepEqual(checkConfigText(JSON.stringify({ mdns: "maybe" })), [{
    key: "mdns",
    reason:
      'Invalid option: expected one of "on"|"off"|"true"|"false" or a boolean (given "maybe")',
  }]);
  assert.deepEqual(checkConfigText(JSON.stringify({ legacyHttpPort: "none" })), [{
    key: "legacyHttpPort",
    reason: 'Invalid option: expected "off" or a whole number from 0 to 65535 (given "none")',
  }]);
  // Every setting, every kind of bad value: the reason says what is expected.
  for (const name of Object.keys(SETTINGS)) {
    for (const value of ["maybe", {}, [1], null]) {
      for (const { reason } of checkConfigText(JSON.stringify({ [name]: value }))) {
        assert.match(reason, /expected|Too (big|small)/, `${name} ${JSON.stringify(value)}`);
        assert.doesNotMatch(reason, /^Invalid input \(/, `${name} ${JSON.stringify(value)}`);
      }
    }
  }
});

Deno.test("config check: not JSON, not an object, missing", async () => {
  assert.match(checkConfigText("{ httpPort: 1 }")[0]!.reason, /not valid JSON/);
  assert.deepEqual(checkConfigText("[1]"), [
    { key: null, reason: "must hold one JSON object of settings" },
  ]);
  const missing = await check(["check", "/nonexistent/cueport.json"]);
  assert.equal(missing.code, 1);
  assert.match(missing.lines[0]!, /cannot read/);
  // No file at the default place: the defaults apply.
  const dir = await Deno.makeTempDir();
  try {
    const none = await check(["check"], { HOME: dir });
    assert.equal(none.code, 0);
    assert.match(none.lines[0]!, /No config file at .*: the defaults apply/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("config check agrees with what the service accepts", async () => {
  for (const settings of [{ wsPort: 1 }, { wsPort: -1 }, { oscQueryPort: "off" }, { nope: 1 }]) {
    await withFile(JSON.stringify(settings), async (path) => {
      const accepted = await loadSettings(["--config", path, "--data-dir", "/d"], () => undefined)
        .then(() => true, () => false);
      assert.equal(checkConfigText(JSON.stringify(settings)).length === 0, accepted);
    });
  }
});

Deno.test("the default config file: per platform, and read when present", async () => {
  const env = (vars: Record<string, string>) => (n: string) => vars[n];
  assert.equal(defaultConfigPath(env({ HOME: "/h" }), "linux"), "/h/.config/cueport/config.json");
  assert.equal(
    defaultConfigPath(env({ HOME: "/h", XDG_CONFIG_HOME: "/x" }), "linux"),
    "/x/cueport/config.json",
  );
  assert.equal(
    defaultConfigPath(env({ HOME: "/h", CONFIGURATION_DIRECTORY: "/etc/cueport" }), "linux"),
    "/etc/cueport/config.json",
  );
  assert.equal(
    defaultConfigPath(env({ HOME: "/Users/a" }), "darwin"),
    "/Users/a/Library/Application Support/Cueport/config.json",
  );
  assert.equal(
    defaultConfigPath(env({ APPDATA: "C:\\Users\\a\\AppData\\Roaming" }), "windows"),
    "C:\\Users\\a\\AppData\\Roaming\\Cueport\\config.json",
  );
  assert.equal(defaultConfigPath(env({}), "linux"), null);
  if (Deno.build.os !== "linux") return;
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify({ httpPort: 4242 }));
    const loaded = await loadSettings(
      ["--data-dir", "/d"],
      env({ CONFIGURATION_DIRECTORY: dir }),
    );
    assert.ok(!loaded.help);
    assert.equal(loaded.settings.httpPort, 4242);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cueport config and group with an option they do not take: the option named, not Node's advice", async () => {
  const config = await check(["path", "--data-dir", "/x"]);
  assert.equal(config.code, 2);
  assert.equal(config.lines[0]!.split("\n")[0], "cueport config: Unknown option '--data-dir'");
  const lines: string[] = [];
  assert.equal(await runGroupCommand(["join", "show", "--bogus"], (l) => lines.push(l)), 2);
  assert.equal(lines[0]!.split("\n")[0], "cueport group: Unknown option '--bogus'");
});
