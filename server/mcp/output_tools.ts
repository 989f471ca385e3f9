/**
 * `app_get_output_frame`: the picture the output shows now (what the audience sees), as MCP
 * image content, from the `outputFrame` media operation, with the scope (`view`) and the
 * budgets of `GET /api/v1/output/frame.jpg`.
 * @module
 */
import { Buffer } from "node:buffer";
import { z } from "zod";
import { MediaImage, operationNamed, OutputFrameInput } from "../core/mod.ts";
import { type McpTool, readAnnotations } from "./tool.ts";

/** The size an assistant gets when it asks none: enough to tell what is shown, small to read. */
export const OUTPUT_FRAME_TOOL_SIZE = 512;

/** The structured answer beside the image. */
const OutputFrameAnswer = z.object({
  mimeType: z.enum(["image/jpeg", "image/png"]),
  bytes: z.number().int().describe("The picture's length in bytes"),
  etag: z.string().describe("Changes when the picture does"),
});

/** `app_get_output_frame`. */
export function outputFrameTool(): McpTool<
  { size?: number; format: "jpeg" | "png"; quality: number }
> {
  const outputFrame = operationNamed("outputFrame");
  return {
    name: "app_get_output_frame",
    description:
      'See what the audience sees: the picture the output shows now, as an image (JPEG unless format says PNG), its longer side `size` pixels (default 512). Use it to check what a cue or an edit put on screen. Refused with NO_OUTPUT when no output runs (the output setting is none). Example: {"size": 320}',
    annotations: readAnnotations("Get the output's picture"),
    operation: outputFrame,
    reaches: [outputFrame],
    input: OutputFrameInput.pick({ size: true, format: true, quality: true }).extend({
      format: OutputFrameInput.shape.format.describe("jpeg (the default) or png"),
    }),
    output: OutputFrameAnswer,
    call: async (input, ctx) => {
      const size = input.size ?? OUTPUT_FRAME_TOOL_SIZE;
      const answer = await ctx.run(outputFrame, { ...input, size });
      if (!(answer instanceof MediaImage)) throw new Error("The output's picture did not come");
      return {
        structured: { mimeType: answer.contentType, bytes: answer.bytes.length, etag: answer.etag },
        images: [{
          data: Buffer.from(answer.bytes).toString("base64"),
          mimeType: answer.contentType,
        }],
      };
    },
  };
}
