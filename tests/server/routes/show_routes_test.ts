import assert from "node:assert/strict";
import { Uint8ArrayReader, Uint8ArrayWriter, ZipReader } from "@zip.js/zip.js";
import { sha256Hex, zipOf } from "../../../tools/testing/show_files.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";

/** Every entry of a zip in memory, by path. */
async function unzip(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const reader = new ZipReader(new Uint8ArrayReader(bytes));
  const out = new Map<string, Uint8Array>();
  for (const entry of await reader.getEntries()) {
    if (!entry.directory) out.set(entry.filename, await entry.getData(new Uint8ArrayWriter()));
  }
  await reader.close();
  return out;
}

async function exportShow(svc: TestService, projectId: string): Promise<Response> {
  return await fetch(`${svc.base}/api/v1/projects/${projectId}/export`);
}

async function importShow(svc: TestService, bytes: Uint8Array, query = "") {
  const res = await fetch(`${svc.base}/api/v1/projects/import${query}`, {
    method: "POST",
    headers: { "content-type": "application/zip" },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
  return { status: res.status, body: await res.json() };
}

/** What an import must leave as it was: the Project folders, the presets, the staging. */
async function leftovers(svc: TestService): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(`${svc.dataDir}/projects`)) names.push(`projects/${e.name}`);
  try {
    for await (const e of Deno.readDir(`${svc.dataDir}/uploads`)) names.push(`uploads/${e.name}`);
  } catch { /* none yet */ }
  return names.sort();
}

/** The Project's data and its media's sha256, by path: what must survive a round trip. */
async function fingerprint(svc: TestService, projectId: string) {
  const project = (await svc.get(`/api/v1/projects/${projectId}`)).body;
  const media: Record<string, string> = {};
  for await (const e of Deno.readDir(`${svc.dataDir}/projects/${projectId}/media`)) {
    media[e.name] = await sha256Hex(
      await Deno.readFile(`${svc.dataDir}/projects/${projectId}/media/${e.name}`),
    );
  }
  return { project, media };
}

Deno.test("show file: export the demo, import it on an empty service, the same Project and media", async (t) => {
  const from = await startTestService({}, { demo: true });
  const to = await startTestService({}, { demo: true });
  try {
    const res = await exportShow(from, "demo");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/zip");
    assert.match(
      res.headers.get("content-disposition")!,
      /^attachment; filename=".+\.cueport\.zip"$/,
    );
    const zip = new Uint8Array(await res.arrayBuffer());
    const entries = await unzip(zip);
    await t.step("the manifest lists every other entry with its size and sha256", async () => {
      const manifest = JSON.parse(new TextDecoder().decode(entries.get("manifest.json")!));
      assert.equal(manifest.format, "cueport-show");
      assert.equal(manifest.version, 1);
      assert.equal(manifest.project.id, "demo");
      const listed = manifest.entries.map((e: { path: string }) => e.path).sort();
      assert.deepEqual(listed, [...entries.keys()].filter((p) => p !== "manifest.json").sort());
      for (const e of manifest.entries) {
        assert.equal(e.size, entries.get(e.path)!.length, e.path);
        assert.equal(e.sha256, await sha256Hex(entries.get(e.path)!), e.path);
      }
      assert.ok(listed.some((p: string) => p.startsWith("media/")), "the media are in it");
    });
    await t.step("imported where demo is taken, it is renamed demo-2 and equal", async () => {
      const answer = await importShow(to, zip);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.projectId, "demo-2");
      assert.equal(answer.body.renamedFrom, "demo");
      const a = await fingerprint(from, "demo");
      const b = await fingerprint(to, "demo-2");
      assert.deepEqual(b.media, a.media);
      assert.deepEqual({ ...b.project, projectId: "demo", active: a.project.active }, a.project);
      const listed = (await to.get("/api/v1/projects")).body;
      assert.ok(JSON.stringify(listed).includes("demo-2"));
    });
    await t.step("a second import gets demo-3; nothing staged is left", async () => {
      const answer = await importShow(to, zip);
      assert.equal(answer.body.projectId, "demo-3");
      assert.deepEqual(await leftovers(to), [
        "projects/demo",
        "projects/demo-2",
        "projects/demo-3",
      ]);
    });
    await t.step(
      "?replace=true replaces demo in place, while it plays only with force; its old folder goes to the trash",
      async () => {
        const play = await to.post("/api/v1/action", { name: "PLAY_IN", projectID: "demo" });
        assert.equal(play.status, 200, JSON.stringify(play.body));
        const refused = await importShow(to, zip, "?replace=true");
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
        assert.equal(refused.body.error.code, "EDIT_REFUSED");
        assert.match(
          refused.body.error.message,
          /Project "demo" is playing: stop it first, or import with force: \?force=true over HTTP, "force": true over MCP, --force with cueport show import$/,
        );
        const answer = await importShow(to, zip, "?replace=true&force=true");
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual([answer.body.projectId, answer.body.replaced], ["demo", true]);
        assert.deepEqual(
          (await fingerprint(to, "demo")).media,
          (await fingerprint(from, "demo")).media,
        );
        assert.deepEqual(await leftovers(to), [
          "projects/demo",
          "projects/demo-2",
          "projects/demo-3",
        ]);
        const listed = (await to.get("/api/v1/projects")).body.projects;
        assert.equal(listed.filter((p: { projectId: string }) => p.projectId === "demo").length, 1);
        // The replaced Project is in the trash like a deleted one: restored under a free id.
        const restored = await to.post("/api/v1/edit", {
          name: "project.restore",
          params: { projectID: "demo" },
        });
        assert.equal(restored.status, 200, JSON.stringify(restored.body));
        assert.equal(restored.body.projectId, "demo-4");
        await to.post("/api/v1/edit", {
          name: "project.delete",
          projectID: "demo-4",
          params: { force: true },
        });
      },
    );
    await t.step("an unknown Project is 404 JSON, not a zip", async () => {
      const res = await exportShow(from, "nope");
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error.code, "NOT_FOUND");
    });
    await t.step("a closed Project is 404 saying to open it", async () => {
      const closed = await to.post("/api/v1/edit", {
        name: "project.close",
        projectID: "demo-3",
        params: {},
      });
      assert.equal(closed.status, 200, JSON.stringify(closed.body));
      const res = await exportShow(to, "demo-3");
      assert.equal(res.status, 404);
      assert.match(
        (await res.json()).error.message,
        /Project "demo-3" is closed: send project.open \{"projectID": "demo-3"\}/,
      );
    });
    await t.step(
      "a media file gone from disk is a 404 naming it, before any byte of zip",
      async () => {
        const [name] = (await Array.fromAsync(Deno.readDir(`${from.dataDir}/projects/demo/media`)))
          .map((e) => e.name);
        await Deno.remove(`${from.dataDir}/projects/demo/media/${name}`);
        const res = await exportShow(from, "demo");
        assert.equal(res.status, 404);
        assert.match((await res.json()).error.message, /is missing from disk/);
      },
    );
  } finally {
    await from.stop();
    await to.stop();
  }
});

Deno.test("show file: a truncated or tampered file is refused with the reason and leaves nothing", async (t) => {
  const svc = await startTestService({}, { demo: true });
  try {
    const zip = new Uint8Array(await (await exportShow(svc, "demo")).arrayBuffer());
    const entries = await unzip(zip);
    const before = await leftovers(svc);
    const presetsBefore = await Deno.readTextFile(`${svc.dataDir}/presets.json`).catch(() => "");
    const refused = async (bytes: Uint8Array, reason: RegExp) => {
      const answer = await importShow(svc, bytes);
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.error.code, "INVALID_SHOW_FILE");
      assert.match(answer.body.error.message, reason);
      assert.deepEqual(await leftovers(svc), before);
      assert.equal(
        await Deno.readTextFile(`${svc.dataDir}/presets.json`).catch(() => ""),
        presetsBefore,
      );
    };
    await t.step("truncated: not a whole zip", async () => {
      await refused(zip.subarray(0, Math.floor(zip.length / 2)), /not a whole zip file/);
    });
    await t.step("one byte of a media entry flipped: that entry's sha256", async () => {
      const [path, data] = [...entries].find(([p, d]) => p.startsWith("media/") && d.length > 64)!;
      // Stored, not compressed: the media's bytes are in the zip as they are.
      const at = indexOf(zip, data.subarray(0, 64)) + 32;
      const tampered = zip.slice();
      tampered[at] = tampered[at]! ^ 0xff;
      await refused(tampered, new RegExp(`entry "${path}" (has sha256|cannot be read)`));
    });
    await t.step("a manifest that lies about a sha256", async () => {
      const manifest = JSON.parse(new TextDecoder().decode(entries.get("manifest.json")!));
      manifest.entries[0].sha256 = "0".repeat(64);
      const lied = new Map(entries);
      lied.set("manifest.json", new TextEncoder().encode(JSON.stringify(manifest)));
      await refused(
        await zipOf(lied),
        /entry "project.json" has sha256 [0-9a-f]+, the manifest says 0+/,
      );
    });
    await t.step("an entry whose path climbs out (zip-slip)", async () => {
      const evil = new Map(entries);
      evil.set("media/../../evil.txt", new Uint8Array([1]));
      await refused(await zipOf(evil), /is unsafe/);
    });
  } finally {
    await svc.stop();
  }
});

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  throw new Error("needle not found");
}

Deno.test("show file routes need the edit scope: a view and control device is refused both", async () => {
  const svc = await startTestService({}, { demo: true });
  const port = svc.service.ports.http;
  try {
    const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
    const paired = await remoteRequest(port, "POST", "/api/v1/pair", {
      body: { otp, scopes: ["view", "control"] },
    });
    const headers = { authorization: `Bearer ${paired.body.token}` };
    const exported = await remoteRequest(port, "GET", "/api/v1/projects/demo/export", { headers });
    assert.equal(exported.status, 403);
    assert.equal(exported.body.error.code, "INSUFFICIENT_SCOPE");
    const imported = await remoteRequest(port, "POST", "/api/v1/projects/import", {
      headers,
      body: {},
    });
    assert.equal(imported.status, 403);
    assert.equal(imported.body.error.code, "INSUFFICIENT_SCOPE");
  } finally {
    await svc.stop();
  }
});

Deno.test("show file: a preset's IMPORTED images go with it and come back on the other machine", async () => {
  const from = await startTestService({}, { demo: true });
  const to = await startTestService({}, { demo: true });
  try {
    const dir = new URL("../../fixtures/isf_files/", import.meta.url);
    const read = (name: string) => Deno.readFile(new URL(encodeURIComponent(name), dir));
    const [code, noise] = [await read("Night Vision.fs"), await read("noise2d.png")];
    const form = new FormData();
    form.append("file", new Blob([code]), "Night Vision.fs");
    form.append("file", new Blob([noise]), "noise2d.png");
    const uploaded = await fetch(`${from.base}/api/v1/files/upload`, {
      method: "POST",
      body: form,
    });
    const upload = await uploaded.json();
    assert.equal(uploaded.status, 200, JSON.stringify(upload));
    const presetID = upload.edits[0].created.presetID;
    const added = await from.post("/api/v1/edit", { name: "effect.add", params: { presetID } });
    assert.equal(added.status, 200, JSON.stringify(added.body));

    const res = await exportShow(from, "demo");
    assert.equal(res.status, 200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const entries = await unzip(bytes);
    const sha = await sha256Hex(noise);
    const path = `preset_images/${sha}.png`;
    // Compared by sha256: a failed deepEqual of 94 KB arrays builds a diff that fills the memory.
    assert.ok(entries.has(path), `${path} in ${[...entries.keys()]}`);
    assert.equal(await sha256Hex(entries.get(path)!), sha);
    const manifest = JSON.parse(new TextDecoder().decode(entries.get("manifest.json")));
    assert.deepEqual(
      manifest.entries.find((e: { path: string }) => e.path === path),
      { path, size: noise.length, sha256: sha },
    );

    const imported = await importShow(to, bytes);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    const project = (await to.get(`/api/v1/projects/${imported.body.projectId}`)).body;
    const theirs = project.effects.at(-1).presetId;
    const back = await fetch(`${to.base}/api/v1/presets/effect/${theirs}/images/noiseTex`);
    assert.equal(back.status, 200);
    assert.equal(await sha256Hex(new Uint8Array(await back.arrayBuffer())), sha);

    // An image whose bytes are not those its name and its preset say (the manifest made to
    // agree with them) is refused, naming it: the store is addressed by those bytes' sha256.
    const flipped = noise.map((x) => x ^ 1);
    const forged = new Map(entries);
    forged.set(path, flipped);
    manifest.entries = manifest.entries.map((e: { path: string }) =>
      e.path === path ? { path, size: flipped.length, sha256: "" } : e
    );
    manifest.entries.find((e: { path: string }) => e.path === path).sha256 = await sha256Hex(
      flipped,
    );
    forged.delete("manifest.json");
    forged.set("manifest.json", new TextEncoder().encode(JSON.stringify(manifest)));
    const refused = await importShow(to, await zipOf(forged));
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.match(refused.body.error.message, new RegExp(`preset_images/${sha}\\.png`));

    // A preset that says its image is other than the bytes are (the output would be told a
    // wrong size) is refused too, naming both.
    const presets = JSON.parse(new TextDecoder().decode(entries.get("presets.json")));
    presets.find((p: { id: string }) => p.id === presetID).images[0].width = 999;
    const lying = new TextEncoder().encode(JSON.stringify(presets));
    const told = new Map(entries);
    told.set("presets.json", lying);
    const original = JSON.parse(new TextDecoder().decode(entries.get("manifest.json")));
    original.entries = await Promise.all(
      original.entries.map(async (e: { path: string }) =>
        e.path === "presets.json"
          ? { path: e.path, size: lying.length, sha256: await sha256Hex(lying) }
          : e
      ),
    );
    told.delete("manifest.json");
    told.set("manifest.json", new TextEncoder().encode(JSON.stringify(original)));
    const untrue = await importShow(to, await zipOf(told));
    assert.equal(untrue.status, 422, JSON.stringify(untrue.body));
    assert.match(
      untrue.body.error.message,
      /is image\/png 256 256, its preset says image\/png 999 256/,
    );
  } finally {
    await from.stop();
    await to.stop();
  }
});
