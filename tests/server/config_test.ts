import assert from "node:assert/strict";
import { envName, loadSettings } from "../../server/config.ts";

const noEnv = () => undefined;

Deno.test("loadSettings() gives the spec's ports by default", async () => {
  const loaded = await loadSettings(["--data-dir", "/tmp/x"], noEnv);
  assert.ok(!loaded.help);
  assert.deepEqual(
    [
      loaded.settings.httpPort,
      loaded.settings.wsPort,
      loaded.settings.oscPort,
      loaded.settings.host,
    ],
    [17736, 17734, 17735, ["::", "0.0.0.0"]],
  );
});

Deno.test("loadSettings() takes flags over environment over config file", async () => {
  const file = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(
      file,
      JSON.stringify({ httpPort: 1001, wsPort: 1002, oscPort: 1003, logLevel: "debug" }),
    );
    const env: Record<string, string> = { CUEPORT_WS_PORT: "2002", CUEPORT_OSC_PORT: "2003" };
    const loaded = await loadSettings(
      ["--config", file, "--osc-port", "3003", "--data-dir", "/d"],
      (n) => env[n],
    );
    assert.ok(!loaded.help);
    const s = loaded.settings;
    assert.deepEqual([s.httpPort, s.wsPort, s.oscPort, s.logLevel, s.dataDir], [
      1001,
      2002,
      3003,
      "debug",
      "/d",
    ]);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("loadSettings() parses an external player command as JSON or words", async () => {
  const a = await loadSettings(
    ["--player-command", '["/opt/app", "--rpc"]', "--data-dir", "/d"],
    noEnv,
  );
  const b = await loadSettings(
    ["--data-dir", "/d"],
    (n) => (n === "CUEPORT_PLAYER_COMMAND" ? "/opt/app --rpc" : undefined),
  );
  assert.ok(!a.help && !b.help);
  assert.deepEqual(a.settings.playerCommand, ["/opt/app", "--rpc"]);
  assert.deepEqual(b.settings.playerCommand, ["/opt/app", "--rpc"]);
});

Deno.test("loadSettings() rejects bad values and unknown flags with the setting's name", async () => {
  await assert.rejects(loadSettings(["--http-port", "70000"], noEnv), /Invalid setting httpPort/);
  await assert.rejects(loadSettings(["--log-level", "loud"], noEnv), /Invalid setting logLevel/);
  await assert.rejects(
    loadSettings(["--mdns", "maybe"], noEnv),
    /Invalid setting mdns \(--mdns\): Invalid option: expected one of "on"\|"off"\|"true"\|"false" or a boolean \(given "maybe"\)/,
  );
  await assert.rejects(loadSettings(["--bogus"], noEnv), /bogus/);
  await assert.rejects(
    loadSettings(["--config", "/nonexistent.json"], noEnv),
    /Cannot read config file/,
  );
  assert.equal(envName("positionIntervalMs"), "CUEPORT_POSITION_INTERVAL_MS");
  assert.deepEqual(await loadSettings(["--help"], noEnv), { help: true });
});

/** `text` as a regular expression matching it literally. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

Deno.test("loadSettings() refuses a number setting given what is no number, and says the range it takes", async () => {
  // Named with where it was given: the flag, or the config file.
  const refusal = (setting: string, place: string, expected: string, given: unknown) =>
    new RegExp(
      `^Error: Invalid setting ${setting} \\(${literally(place)}\\): ` +
        `${literally(expected)} \\(given ${literally(JSON.stringify(given))}\\)`,
    );
  const portRange = "a whole number from 0 to 65535";
  const port = `expected ${portRange}`;
  // Empty text was 0 (a free port) and blank text too: a service on a port nobody asked for.
  const cases: Array<[setting: string, flag: string, given: string, expected: string]> = [
    ...["", " ", "abc", "1.5", "70000", "-1", "0x50", "Infinity"].map((
      given,
    ): [string, string, string, string] => ["httpPort", "http-port", given, port]),
    ["coalesceMs", "coalesce-ms", "", "expected a whole number of 0 or more"],
    ["playerTimeoutMs", "player-timeout", "0", "expected a whole number of 1 or more"],
    ["oscRatePerSecond", "osc-rate", "none", "expected a number above 0"],
    [
      "legacyHttpPort",
      "legacy-http-port",
      "x",
      `Invalid option: expected "off" or ${portRange}`,
    ],
  ];
  for (const [setting, flag, given, expected] of cases) {
    await assert.rejects(
      loadSettings(["--data-dir", "/d", `--${flag}=${given}`], noEnv),
      refusal(setting, `--${flag}`, expected, given),
    );
  }
  // A config file's value is a number, or text that is one: not null, a switch or a list.
  const file = await Deno.makeTempFile({ suffix: ".json" });
  try {
    for (const given of [null, true, [8080], "", {}]) {
      await Deno.writeTextFile(file, JSON.stringify({ httpPort: given }));
      await assert.rejects(
        loadSettings(["--data-dir", "/d", "--config", file], noEnv),
        refusal("httpPort", `in config file "${file}"`, port, given),
      );
    }
    // Every bad value of the file at once, each named with the file, in one line.
    await Deno.writeTextFile(file, JSON.stringify({ coalesceMs: -1, httpPort: 70000 }));
    await assert.rejects(
      loadSettings(["--data-dir", "/d", "--config", file], noEnv),
      new RegExp(
        `^Error: Invalid settings: httpPort \\(in config file "${literally(file)}"\\): ${port} ` +
          `\\(given 70000\\); coalesceMs \\(in config file "${
            literally(file)
          }"\\): .*\\(given -1\\)$`,
      ),
    );
    // The variable that gave it, when it did.
    await assert.rejects(
      loadSettings(["--data-dir", "/d"], (name) => name === "CUEPORT_HTTP_PORT" ? "x" : undefined),
      refusal("httpPort", "CUEPORT_HTTP_PORT", port, "x"),
    );
    await Deno.writeTextFile(file, JSON.stringify({ httpPort: " 8080 ", wsPort: 8081 }));
    const loaded = await loadSettings(["--data-dir", "/d", "--config", file], noEnv);
    assert.ok(!loaded.help);
    assert.deepEqual([loaded.settings.httpPort, loaded.settings.wsPort], [8080, 8081]);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("loadSettings() refuses a JSON body limit the bundled player could not read", async () => {
  await assert.rejects(
    () => loadSettings(["--data-dir", "/d", "--max-body", String(32 * 1024 * 1024)], noEnv),
    /Invalid setting maxBodyBytes/,
  );
});

Deno.test("loadSettings() says where a config file stops being JSON, as cueport config check does", async () => {
  const file = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(file, '{"httpPort": 8080\n,}');
    await assert.rejects(
      loadSettings(["--config", file], noEnv),
      new RegExp(`^Error: Cannot parse config file ".*": not valid JSON: .*line 2 column 2`),
    );
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("loadSettings() reports a key the config file does not know, with a near miss", async () => {
  const file = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(file, JSON.stringify({ http_port: 1 }));
    await assert.rejects(
      loadSettings(["--config", file], noEnv),
      /Unknown setting "http_port" in config file ".*" \(did you mean "httpPort"\?\)/,
    );
    await Deno.writeTextFile(file, JSON.stringify({ colour: "red" }));
    await assert.rejects(loadSettings(["--config", file], noEnv), /Unknown setting "colour"/);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("the bundled player checks its flags with the settings' schemas", async () => {
  const main = new URL("../../main.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "player", "--data-dir", "/tmp/unused", "--history-limit", "0"],
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.match(new TextDecoder().decode(out.stderr), /invalid --history-limit/);
});

Deno.test("loadSettings() refuses an allow list's bad entry as a setting, before anything starts", async () => {
  // It failed the start later ("Cannot start: oscAllow: ..."), exit 1, after making the data dir.
  await assert.rejects(
    loadSettings(["--data-dir", "/d", "--osc-allow", "10.0.0.1,192.168.1.0/33"], noEnv),
    /^Error: Invalid setting oscAllow \(--osc-allow\): "192\.168\.1\.0\/33" is not an address or subnet: expected one such as 192\.168\.1\.7 or 192\.168\.1\.0\/24/,
  );
  await assert.rejects(
    loadSettings(
      ["--data-dir", "/d"],
      (n) => n === "CUEPORT_MIDI_ALLOW" ? "desk.local" : undefined,
    ),
    /^Error: Invalid setting midiAllow \(CUEPORT_MIDI_ALLOW\): "desk\.local" is not an address/,
  );
  const loaded = await loadSettings(
    ["--data-dir", "/d", "--osc-allow", "10.0.0.0/8,fd00::/8"],
    noEnv,
  );
  assert.ok(!loaded.help);
  assert.deepEqual(loaded.settings.oscAllow, ["10.0.0.0/8", "fd00::/8"]);
});
