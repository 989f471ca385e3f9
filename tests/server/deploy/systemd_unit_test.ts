import assert from "node:assert/strict";
import { quoteForSystemd, systemdUnit } from "../../../server/deploy/systemd_unit.ts";
import { needs } from "../../../tools/testing/peers.ts";

async function writeUnit(isUser: boolean): Promise<{ dir: string; path: string; text: string }> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-unit-" });
  // An executable with a space in its folder: ExecStart's quoting is verified too.
  await Deno.mkdir(`${dir}/bin dir`);
  const program = `${dir}/bin dir/cueport`;
  await Deno.writeTextFile(program, "#!/bin/sh\n");
  await Deno.chmod(program, 0o755);
  const text = systemdUnit({ command: [program], isUser, tools: ["/usr/bin/ffmpeg"] });
  const path = `${dir}/cueport.service`;
  await Deno.writeTextFile(path, text);
  return { dir, path, text };
}

async function analyze(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  const output = await new Deno.Command("systemd-analyze", {
    args,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, out: text(output.stdout) + text(output.stderr) };
}

for (const isUser of [false, true]) {
  Deno.test({
    name: `the ${isUser ? "user" : "system"} unit passes systemd-analyze verify`,
    ...needs("systemd-analyze"),
    async fn() {
      const { dir, path } = await writeUnit(isUser);
      try {
        // A user manager needs a runtime dir, which a CI machine without a login may lack.
        const verify = await analyze(
          ["verify", ...(isUser ? ["--user"] : []), path],
          isUser ? { XDG_RUNTIME_DIR: dir } : {},
        );
        assert.equal(verify.code, 0, verify.out);
        assert.equal(verify.out.trim(), "", "no warnings");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name: "the system unit's systemd-analyze security exposure is OK or better",
  ...needs("systemd-analyze"),
  async fn() {
    const { dir, path } = await writeUnit(false);
    try {
      const security = await analyze(["security", "--offline=true", "--no-pager", path]);
      const level = /Overall exposure level for cueport\.service: ([\d.]+) (\w+)/.exec(
        security.out,
      );
      assert.ok(level, security.out);
      assert.ok(["PERFECT", "SAFE", "OK"].includes(level[2]!), level[0]);
      assert.ok(Number(level[1]) <= 2, level[0]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("the unit: notify readiness, restart, state dir, sandbox; no W^X (V8's JIT)", () => {
  const unit = systemdUnit({ command: ["/usr/local/bin/cueport"], isUser: false, tools: [] });
  const lines = unit.split("\n");
  for (
    const line of [
      "Type=notify",
      "Restart=on-failure",
      "StateDirectory=cueport",
      "ProtectSystem=strict",
      "ProtectHome=yes",
      "PrivateTmp=yes",
      "NoNewPrivileges=yes",
      "CapabilityBoundingSet=",
      "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK",
      "SystemCallFilter=@system-service",
      "ExecStart=/usr/local/bin/cueport serve --data-dir %S/cueport --log-format json",
    ]
  ) assert.ok(lines.includes(line), line);
  assert.ok(!lines.some((l) => l.startsWith("MemoryDenyWriteExecute=")));
  const user = systemdUnit({ command: ["/usr/local/bin/cueport"], isUser: true, tools: [] });
  assert.match(user, /WantedBy=default.target/);
  assert.doesNotMatch(user, /DynamicUser|ProtectSystem/);
});

Deno.test("quoteForSystemd() quotes spaces and escapes specifiers and variables", () => {
  assert.equal(quoteForSystemd("/usr/bin/x"), "/usr/bin/x");
  assert.equal(quoteForSystemd("/a b/x"), '"/a b/x"');
  assert.equal(quoteForSystemd("50%"), "50%%");
  assert.equal(quoteForSystemd("$HOME"), '"$$HOME"');
  assert.equal(quoteForSystemd('say "hi"'), '"say \\"hi\\""');
});
