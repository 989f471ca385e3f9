/**
 * Probe `texture_budget` (issue 40): a paired device (127.0.0.2) adds the
 * largest preset the checks allow (10 `PERSISTENT` `FLOAT` targets of twice
 * the display's sides: the per-program texel budget's 20 images of 1920 x 1080,
 * 664 MB of float texels), then six Effects of it, put on the playing Clip one
 * after another. One of those edits must be refused at the output's texture
 * budget (`EDIT_REFUSED`, `details.reason` `TEXTURE_BUDGET`), and the browser's
 * processes (summed PSS, sampled every half second) must stay under 1 GB. A
 * browser past 3 GB has the Effects taken off at once (the machine is not the
 * subject).
 * @module
 */
import type { ServiceRun } from "./_harness.ts";
import { PLAYING_CLIP, sleep, withShow } from "./_output_show.ts";
import { browserProcesses, summedPssMb } from "./_process_tree.ts";
import { answerWords, type JsonAnswer, RemoteDevice } from "./_remote_device.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import type { Tally } from "./_tally.ts";

const TARGETS_COUNT = 10;

/** The largest preset the checks take: its targets fill the texel budget of one program. */
export const LARGEST_PRESET: string = (() => {
  const passes = [
    ...Array.from({ length: TARGETS_COUNT }, (_, i) => ({
      TARGET: `t${i}`,
      PERSISTENT: true,
      FLOAT: true,
      WIDTH: "$WIDTH*2",
      HEIGHT: "$HEIGHT*2",
    })),
    {},
  ];
  const header = JSON.stringify({
    INPUTS: [{ NAME: "inputImage", TYPE: "image" }],
    PASSES: passes,
  });
  const reads = Array.from(
    { length: TARGETS_COUNT },
    (_, i) => `IMG_NORM_PIXEL(t${i}, isf_FragNormCoord)`,
  )
    .join(" + ");
  return `/*${header}*/
void main() {
  vec4 c = IMG_THIS_PIXEL(inputImage);
  if (PASSINDEX == ${TARGETS_COUNT}) {
    gl_FragColor = c + 0.0001 * (${reads});
  } else {
    gl_FragColor = c;
  }
}
`;
})();

const EFFECTS = 6;
const BROWSER_UNDER_MB = 1024;
const TAKE_OFF_OVER_MB = 3072;
/** Time for the output to draw each state before the next edit. */
const SETTLE_MS = 2000;

/** The `texture_budget` probe. */
export const textureBudget: Probe = {
  name: "texture_budget",
  summary:
    "six Effects of the largest allowed preset on the playing Clip from a paired device: refused at the texture budget (TEXTURE_BUDGET), browser under 1 GB",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  await withShow(tally, async (svc) => {
    const device = await RemoteDevice.pair(svc.ports.http);
    const sampler = new BrowserRss(svc);
    try {
      await addEffects(device, sampler, tally);
      await sleep(SETTLE_MS);
    } finally {
      await device.edit("clip.update", { clipID: PLAYING_CLIP, options: { effects: [] } });
      const peak = await sampler.stop();
      if (peak === null) {
        tally.shortfall("the browser's memory was never measured: no browser process was found");
      } else tally.note(`the browser's processes: ${peak} MB at most (summed PSS)`);
      if (peak !== null && peak >= BROWSER_UNDER_MB) {
        tally.shortfall(
          `the browser's processes reached ${peak} MB (target under ${BROWSER_UNDER_MB})`,
        );
      }
    }
  });
}

/** Adds the preset and the six Effects, each put on the Clip; judges the refusals. */
async function addEffects(device: RemoteDevice, sampler: BrowserRss, tally: Tally): Promise<void> {
  const add = await device.edit("preset.add", {
    kind: "effect",
    name: "Probe largest",
    type: "isf",
    code: LARGEST_PRESET,
  });
  tally.inputs++;
  const presetId = RemoteDevice.created(add, "presetID");
  if (presetId === null) throw new Error(`The largest preset was refused: ${answerWords(add)}`);
  const onClip: string[] = [];
  let budgetRefusal: string | null = null;
  for (let i = 0; i < EFFECTS && budgetRefusal === null && !sampler.isOver; i++) {
    const effect = await device.edit("effect.add", { presetID: presetId });
    tally.inputs++;
    budgetRefusal = refusal(effect);
    const effectId = RemoteDevice.created(effect, "effectID");
    if (effectId === null) {
      if (budgetRefusal === null) tally.note(`effect.add ${i + 1}: ${answerWords(effect)}`);
      break;
    }
    const put = await device.edit("clip.update", {
      clipID: PLAYING_CLIP,
      options: { effects: [...onClip, effectId] },
    });
    tally.inputs++;
    budgetRefusal = refusal(put);
    if (put.status === 200) onClip.push(effectId);
    else if (budgetRefusal === null) {
      tally.note(`clip.update with ${i + 1} Effects: ${answerWords(put)}`);
    }
    await sleep(SETTLE_MS);
  }
  tally.note(
    `${onClip.length} Effect(s) of the largest preset on ${PLAYING_CLIP}; ` +
      (budgetRefusal ?? "no edit refused at the texture budget"),
  );
  if (sampler.isOver) tally.note(`the browser passed ${TAKE_OFF_OVER_MB} MB: Effects taken off`);
  if (budgetRefusal === null) {
    tally.shortfall(
      `${onClip.length} Effects of the largest preset taken, none refused with TEXTURE_BUDGET`,
    );
  }
}

/** `the Nth edit refused: ...` when `answer` is the budget's refusal, else null. */
function refusal(answer: JsonAnswer): string | null {
  const error = answer.body?.error as { code?: string; details?: { reason?: string } } | undefined;
  if (
    answer.status === 400 && error?.code === "EDIT_REFUSED" &&
    error.details?.reason === "TEXTURE_BUDGET"
  ) {
    return `refused at the budget: ${JSON.stringify(error.details)}`;
  }
  return null;
}

/**
 * The summed PSS of the player's browser processes every half second; its peak, null until a
 * look found a browser process (a figure never measured is no figure under the bound).
 */
class BrowserRss {
  #peak: number | null = null;
  #isRunning = true;
  #loop: Promise<void>;

  constructor(svc: ServiceRun) {
    this.#loop = (async () => {
      while (this.#isRunning) {
        const player = await svc.playerPid();
        const rows = player === null ? [] : await browserProcesses(player);
        if (rows.length > 0) {
          this.#peak = Math.max(this.#peak ?? 0, await summedPssMb(rows.map((r) => r.pid)));
        }
        await sleep(500);
      }
    })();
  }

  /** Whether the browser passed the bound past which the Effects are taken off. */
  get isOver(): boolean {
    return (this.#peak ?? 0) > TAKE_OFF_OVER_MB;
  }

  async stop(): Promise<number | null> {
    this.#isRunning = false;
    await this.#loop;
    return this.#peak;
  }
}
