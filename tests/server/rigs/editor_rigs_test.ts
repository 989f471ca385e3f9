/**
 * The output's own editor page in a rig group (docs/rigs.md, "The output's own editor page"), on
 * a real etcd of three members and two real rigs, each in a network namespace
 * (`tools/testing/etcd_cluster.ts`): a control moved in the editor page of rig A is committed to
 * the group's log and on both rigs, and so are the page's undo and redo; on a rig cut off from the
 * quorum the page's edit is refused with the group's code (the page sees `GROUP_NO_QUORUM: ...`),
 * nothing of it applied anywhere, also after the partition heals. The page is driven by its
 * socket's messages: each rig's player is the bundled player with its editor page on a stand-in
 * socket (`_editor_player.ts`, which says why not a browser). As root with etcd only; otherwise
 * skipped with one line.
 */
import assert from "node:assert/strict";
import {
  clusterTestOptions,
  EtcdCluster,
  type Rig,
  waitFor,
} from "../../../tools/testing/etcd_cluster.ts";
import type { GroupStatus } from "../../../protocol/rigs.ts";

const options = await clusterTestOptions("editor_rigs_test");
const PLAYER = new URL("./_editor_player.ts", import.meta.url).pathname;

/** A rig whose player is `_editor_player.ts`: its page's port is read from `portFile`. */
async function startEditorRig(cluster: EtcdCluster, name: string, dir: string) {
  const dataDir = await Deno.makeTempDir({ dir, prefix: `${name}-` });
  const portFile = `${dir}/${name}.port`;
  const player = [Deno.execPath(), "run", "-A", PLAYER, portFile, "--data-dir", dataDir];
  const rig = await cluster.startRig(name, "show", {
    dataDir,
    args: ["--player-command", JSON.stringify(player)],
  });
  const port = await waitFor(
    `${name}: the editor page's port`,
    () => Deno.readTextFile(portFile).catch(() => ""),
    (text) => text !== "",
  );
  return { rig, page: (message: unknown) => pageSends(rig, Number(port), message) };
}

/** What the editor page gets for `message` sent on its socket (in `rig`'s namespace). */
async function pageSends(rig: Rig, port: number, message: unknown): Promise<Edited> {
  const out = await new Deno.Command("ip", {
    args: [
      ...["netns", "exec", rig.ns, "curl", "-s", "--max-time", "70"],
      ...["--data-binary", JSON.stringify(message), `http://127.0.0.1:${port}/`],
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** The page's answer to an edit. */
interface Edited {
  type: "edited";
  id: number;
  ok: boolean;
  message: string;
  revision?: number;
}

/** The default of the preset's control `size` on `rig` (null while it has no such preset). */
async function sizeOn(rig: Rig, presetID: string): Promise<number | null> {
  const preset = await rig.get(`/api/v1/presets/effect/${presetID}`) as
    | { parameters?: { name: string; default: number }[] }
    | null;
  return preset?.parameters?.find((p) => p.name === "size")?.default ?? null;
}

const status = (rig: Rig) => rig.get("/api/v1/group") as Promise<GroupStatus | null>;

Deno.test({
  name:
    "rig group: the editor page's edit is on both rigs; on a rig cut off, refused with the group's code",
  ...options,
  fn: async () => {
    const cluster = await EtcdCluster.start();
    const dir = await Deno.makeTempDir({ prefix: "cueport-editor-rigs-" });
    try {
      const [a, b] = await Promise.all([
        startEditorRig(cluster, "rig-a", dir),
        startEditorRig(cluster, "rig-b", dir),
      ]);
      for (const { rig } of [a, b]) {
        await waitFor(
          `${rig.name} can edit`,
          () => status(rig),
          (s) => s !== null && s.canEdit && s.leader !== null && s.members.length === 2,
        );
      }
      const added = await a.rig.post("/api/v1/edit", {
        name: "preset.add",
        params: {
          kind: "effect",
          name: "Glow",
          type: "glow",
          parameters: [{ name: "size", type: "number", min: 0, max: 10, default: 2 }],
        },
      });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      const { presetID } = (added.body.edits as { created: { presetID: string } }[])[0]!.created;
      for (const { rig } of [a, b]) {
        await waitFor(`${rig.name} has the preset`, () => sizeOn(rig, presetID), (v) => v === 2);
        const opened = await rig.post("/api/v1/action", {
          name: "OPEN_EDITOR",
          params: ["effect", presetID],
        });
        assert.equal(opened.status, 200, JSON.stringify(opened.body));
        await waitFor(
          `${rig.name}: the editor open`,
          () => rig.get("/api/v1/app-state"),
          (s) => (s as { editor?: { presetId?: string } } | null)?.editor?.presetId === presetID,
        );
      }

      // The page of rig A moves its control: committed to the log, on both rigs.
      const moved = await a.page({ type: "param", id: 1, name: "size", value: 5 });
      assert.equal(moved.ok, true, moved.message);
      const log = await cluster.range("/cueport/show/log/");
      const updates = log.filter((kv) => kv.value.includes('"preset.update"'));
      assert.equal(updates.length, 1, "one entry in the group's log");
      assert.equal(JSON.parse(updates[0]!.value).rig, "rig-a");
      await waitFor("rig-b has the edit", () => sizeOn(b.rig, presetID), (v) => v === 5);
      assert.equal(await sizeOn(a.rig, presetID), 5);
      // Its undo and redo too: the same history on both rigs.
      for (const [id, direction, size] of [[4, "undo", 2], [5, "redo", 5]] as const) {
        const answer = await a.page({ type: "history", id, direction });
        assert.equal(answer.ok, true, answer.message);
        for (const { rig } of [a, b]) {
          await waitFor(
            `${rig.name}: ${direction}`,
            () => sizeOn(rig, presetID),
            (v) => v === size,
          );
        }
      }

      const names = (await cluster.range("/cueport/show/log/"))
        .map((kv) => JSON.parse(kv.value).edits[0].name as string);
      assert.deepEqual(
        names.filter((name) => name.startsWith("project.")),
        ["project.undo", "project.redo"],
        "one entry each",
      );

      // Rig B cut off: its page's edit is refused with the group's code, applied nowhere.
      await cluster.linkDown(b.rig);
      await waitFor("rig-b cut off", () => status(b.rig), (s) => s !== null && !s.canEdit);
      const refused = await b.page({ type: "param", id: 2, name: "size", value: 7 });
      assert.equal(refused.ok, false);
      assert.match(refused.message, /^GROUP_NO_QUORUM: /);
      assert.equal(await sizeOn(b.rig, presetID), 5, "nothing applied on the cut-off rig");
      await cluster.linkUp(b.rig);
      await waitFor("rig-b back", () => status(b.rig), (s) => s !== null && s.canEdit);
      const healed = await a.page({ type: "param", id: 3, name: "size", value: 3 });
      assert.equal(healed.ok, true, healed.message);
      await waitFor("rig-b has the next edit", () => sizeOn(b.rig, presetID), (v) => v === 3);
      const after = (await cluster.range("/cueport/show/log/")).map((kv) => kv.value);
      assert.ok(!after.some((v) => v.includes('"default":7')), "the refused edit in no entry");
    } finally {
      const left = await cluster.remove();
      assert.deepEqual(left, [], "every namespace removed");
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
