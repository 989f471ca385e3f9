// @ts-check
// The Group screen of the web remote (docs/remote.md, "Rig groups"): the rigs of the group as
// `GET /api/v1/group` says, read every 5 s while live (`live.js`); shown in a group only.

import { html } from "./preact.js";

/** @typedef {import("../../../protocol/rigs.ts").GroupStatus} GroupStatus */
/** @typedef {import("../../../protocol/rigs.ts").GroupMember} GroupMember */
/** @typedef {import("../../../protocol/rigs.ts").RigClock} RigClock */

/**
 * `ms` as a signed short text ("+0.4 ms", "-250 ms"); "-" when unknown.
 * @param {number | null | undefined} ms
 */
function signedMs(ms) {
  if (ms === null || ms === undefined) return "-";
  const text = Math.abs(ms) < 10 ? ms.toFixed(1) : ms.toFixed(0);
  return `${ms > 0 ? "+" : ""}${text} ms`;
}

/**
 * A rig's clock as one line, as `cueport group status` says it: role, offset, error.
 * @param {RigClock | null} clock
 */
function clockText(clock) {
  if (!clock) return "clock not told";
  const error = clock.errorMs === null ? "" : `, error ${clock.errorMs.toFixed(1)} ms`;
  return `${clock.role}, offset ${signedMs(clock.offsetMs)}${error}`;
}

/**
 * How long ago a rig's record was last seen, from `lastSeenMs`.
 * @param {GroupMember} member
 */
function seenText(member) {
  if (member.isThisRig) return "this remote is on it";
  if (member.lastSeenMs === null) return "";
  return `seen ${(member.lastSeenMs / 1000).toFixed(member.lastSeenMs < 10_000 ? 1 : 0)} s ago`;
}

/** @param {{member: GroupMember}} props */
function Member({ member }) {
  const clock = member.clock ?? null;
  const lag = clock?.frameLagMs;
  return html`
    <li class=${`rig-row${member.isThisRig ? " rig-here" : ""}`}
      data-member=${member.name} data-leader=${member.isLeader ? "true" : "false"}>
      <div class="rig-name">
          <strong>${member.name}</strong>
          ${member.isLeader && html`<span class="rig-tag" data-tag="leader">leads</span>`}
          ${member.isThisRig && html`<span class="rig-tag" data-tag="here">this rig</span>`}
        </div>
      <div class="rig-facts">
        <span data-fact="clock">${clockText(clock)}</span>
        <span data-fact="lag">frame lag ${lag === null || lag === undefined
          ? "- (no output)"
          : signedMs(lag)}</span>
        <span data-fact="seen">${seenText(member)}</span>
      </div>
    </li>
  `;
}

/**
 * The group: whether edits are possible (and why not), which rig leads, and each rig's clock
 * offset and frame lag as its last heartbeat told them; `status` is the group's status.
 * @param {{status: GroupStatus | null}} props
 */
export function Group({ status }) {
  if (!status) return html`<p class="note">Reading the group...</p>`;
  const members = [...status.members].sort((a, b) =>
    Number(b.isLeader) - Number(a.isLeader) || a.name.localeCompare(b.name)
  );
  return html`
    <section class="group" aria-label="Rig group">
      <h2>Group ${status.group}</h2>
      <p class=${`edits ${status.canEdit ? "edits-yes" : "edits-no"}`} role="status"
        data-can-edit=${status.canEdit ? "true" : "false"}>
        ${status.canEdit ? "Edits possible" : status.reason ?? "Edits are not possible"}</p>
      <p
        class="group-line">On rig <strong data-on=${status.rig}>${status
          .rig}</strong>; ${status.leader === null
          ? "no rig leads now"
          : html`<span data-lead=${status.leader}>${
            status.leader === status.rig ? "it leads" : `rig ${status.leader} leads`
          }</span>`}; ${members.length} ${members.length === 1 ? "rig" : "rigs"}</p>
      <ul class="rigs">${members.map((m) => html`<${Member} key=${m.name} member=${m} />`)}</ul>
    </section>
  `;
}
