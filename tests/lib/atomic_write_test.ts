import assert from "node:assert/strict";
import { removeStaleTemps, writeFilesAtomic, writeJsonAtomic } from "../../lib/atomic_write.ts";
import { isDiskFull } from "../../lib/disk_full.ts";
import { mountTmpfs } from "../../tools/testing/tmpfs.ts";
import { ProjectStore } from "../../player/store.ts";
import { fixtureDataDir, fixtureProject } from "../../tools/testing/fixture.ts";

Deno.test("writeJsonAtomic() leaves the previous file intact when the write dies before the rename", async () => {
  const dir = await fixtureDataDir();
  try {
    const store = new ProjectStore(dir);
    const before = await Deno.readTextFile(`${dir}/projects/show/project.json`);
    store.hooks = {
      beforeRename: () => {
        throw new Error("simulated crash");
      },
    };
    await assert.rejects(
      store.saveProject({ ...fixtureProject(), name: "half written" }),
      /simulated crash/,
    );
    assert.equal(await Deno.readTextFile(`${dir}/projects/show/project.json`), before);
    const leftovers = [...Deno.readDirSync(`${dir}/projects/show`)].map((e) => e.name);
    assert.deepEqual(leftovers, ["project.json"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ProjectStore.loadProjects() ignores and removes temp files a crash left behind", async () => {
  const dir = await fixtureDataDir();
  try {
    await Deno.writeTextFile(
      `${dir}/projects/show/project.json.deadbeef.tmp`,
      '{"id": "show", "na',
    );
    const { projects, problems } = await new ProjectStore(dir).loadProjects();
    assert.deepEqual(problems, []);
    assert.equal(projects[0]!.name, "Fixture Show");
    assert.equal(await removeStaleTemps(`${dir}/projects/show`), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeJsonAtomic() survives a process killed mid-write: the file is always a whole version", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/project.json`;
  try {
    await writeJsonAtomic(path, { ...fixtureProject(), revision: 0 });
    for (let round = 0; round < 3; round++) {
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          new URL("./_write_loop.ts", import.meta.url).pathname,
          path,
        ],
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      // Fail, not hang, if the writer dies or stalls: a stalled one is ended after 20 s.
      const guard = setTimeout(() => child.kill("SIGKILL"), 20_000);
      try {
        while (!seen.includes(`\n${5 + round * 3}\n`)) {
          const { value, done } = await reader.read();
          if (done) {
            throw new Error(`The writer ended early (or stalled); it wrote: ${seen.slice(-200)}`);
          }
          seen += value;
        }
      } finally {
        clearTimeout(guard);
      }
      child.kill("SIGKILL");
      await child.status;
      await reader.cancel();
      const doc = JSON.parse(await Deno.readTextFile(path));
      assert.ok(doc.revision >= 5 + round * 3, `revision ${doc.revision} is a complete write`);
      assert.ok(doc.name.startsWith(`rev ${doc.revision} `));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ProjectStore.loadProjects() reports a corrupt project and keeps the others", async () => {
  const dir = await fixtureDataDir();
  try {
    await Deno.mkdir(`${dir}/projects/broken`);
    await Deno.writeTextFile(`${dir}/projects/broken/project.json`, "{not json");
    const { projects, problems } = await new ProjectStore(dir).loadProjects();
    assert.deepEqual(projects.map((p) => p.id), ["show"]);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.file, "projects/broken/project.json");
    assert.match(problems[0]!.problem, /^not JSON: /);
    assert.equal(problems[0]!.recoveredFrom, null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFilesAtomic() on a disk with room for the first temp only changes no file and leaves no temp", async () => {
  const disk = await mountTmpfs("1m");
  try {
    const [a, b] = [`${disk.dir}/a.json`, `${disk.dir}/b.json`];
    await writeFilesAtomic([{ path: a, data: "old a" }, { path: b, data: "old b" }]);
    disk.fill();
    disk.free(4096); // one page: the first temp fits, the second (8 KB) does not
    const failed = await writeFilesAtomic([
      { path: a, data: "new a" },
      { path: b, data: "x".repeat(8192) },
    ]).then(() => null, (error) => error);
    assert.ok(isDiskFull(failed), String(failed));
    assert.equal(await Deno.readTextFile(a), "old a");
    assert.equal(await Deno.readTextFile(b), "old b");
    const names = [...Deno.readDirSync(disk.dir)].map((e) => e.name).sort();
    assert.deepEqual(names, [".filler", "a.json", "b.json"]);
    disk.free();
    await writeFilesAtomic([{ path: a, data: "new a" }, { path: b, data: "new b" }]);
    assert.equal(await Deno.readTextFile(a) + await Deno.readTextFile(b), "new anew b");
  } finally {
    await disk.close();
  }
});
