/**
 * The media operations: a Clip file's thumbnail, an audio file's waveform,
 * a camera's live thumbnail and the output's picture now. They answer images,
 * not JSON, so only transports that carry bytes serve them (HTTP; MCP as image
 * content). The pictures are made and cached by the service's media module
 * (`MediaSource`, `media.ts`).
 * @module
 */
import {
  CameraThumbnailInput,
  type MediaAnswer,
  MediaAnswerSchema,
  type MediaRequest,
  type MediaSource,
  OutputFrameInput,
  PresetImageInput,
  ThumbnailInput,
  WaveformInput,
} from "./media.ts";
import type { z } from "zod";
import { type AnyOperation, given, type Operation, type OperationContext } from "./operation.ts";

const media = (ctx: OperationContext) => given(ctx.media, "media");

function defineMedia<I>(spec: {
  name: string;
  summary: string;
  input: z.ZodType<I>;
  produces: readonly string[];
  since?: "6.0";
  run(source: MediaSource, input: I, request: MediaRequest): MediaAnswer | Promise<MediaAnswer>;
}): Operation<I, MediaAnswer | Promise<MediaAnswer>> {
  return {
    name: spec.name,
    summary: spec.summary,
    tag: "media",
    kind: "media",
    input: spec.input,
    output: MediaAnswerSchema,
    produces: spec.produces,
    scope: "view",
    needsApiAccess: true,
    isLocalOnly: false,
    ...(spec.since ? { since: spec.since } : {}),
    run: (ctx, input) =>
      spec.run(media(ctx), input, {
        client: ctx.deviceId !== undefined ? `device:${ctx.deviceId}` : ctx.address,
        isLocal: ctx.isLocal,
        signal: ctx.signal,
      }),
  };
}

/** Every media operation. */
export const MEDIA_OPERATIONS: readonly AnyOperation[] = [
  defineMedia({
    name: "thumbnail",
    summary:
      "A picture of a Project's file: the image, a video's frame, or a card; cached, with ETag",
    input: ThumbnailInput,
    produces: ["image/jpeg", "image/png"],
    run: (source, input, request) => source.thumbnail(input, request),
  }),
  defineMedia({
    name: "waveform",
    summary: "A PNG of an audio file's waveform (peaks per pixel column); cached, with ETag",
    input: WaveformInput,
    produces: ["image/png"],
    run: (source, input, request) => source.waveform(input, request),
  }),
  defineMedia({
    name: "cameraThumbnail",
    summary: "A camera's live picture, refreshed every 5 seconds while it is asked for",
    input: CameraThumbnailInput,
    produces: ["image/jpeg"],
    run: (source, input) => source.cameraThumbnail(input),
  }),
  defineMedia({
    name: "outputFrame",
    summary:
      "The picture the output shows now (what the audience sees), a few times a second at most: captures are shared and reused for 200 ms",
    input: OutputFrameInput,
    produces: ["image/jpeg", "image/png"],
    since: "6.0",
    run: (source, input, request) => source.outputFrame(input, request),
  }),
  defineMedia({
    name: "presetImage",
    summary:
      "One IMPORTED image of an ISF preset, the bytes it was imported with (its export beside the code)",
    input: PresetImageInput,
    produces: ["image/png", "image/jpeg"],
    since: "6.0",
    run: (source, input) => given(source.presetImage?.bind(source), "preset images")(input),
  }),
];
