/**
 * The MIDI tools: the MIDI transport's status (participants, sources waiting
 * for approval, the map in effect, the last message) and MIDI learn (the
 * next message received is bound to the action named), the `midiStatus` and
 * `midiLearn` operations as they are (docs/midi.md).
 * @module
 */
import { operationNamed } from "../core/mod.ts";
import { type AnyTool, changeAnnotations, operationTool, readAnnotations } from "./tool.ts";

/** `app_get_midi` and `app_midi_learn`. */
export function midiTools(): AnyTool[] {
  return [
    operationTool(
      {
        name: "app_get_midi",
        description:
          "Show the MIDI transport: connected participants, MIDI sources waiting for the operator's approval, the active Project's MIDI map in effect (its bindings and whether the default map applies: notes 36+ play the active Song's Clips, CC 1-26 drive Controls A-Z, program change selects the Song by pgmId), the last message received and counts. Example: {}",
        annotations: readAnnotations("Show MIDI"),
      },
      operationNamed("midiStatus"),
    ),
    operationTool(
      {
        name: "app_midi_learn",
        description:
          'Bind the next MIDI message to an action (MIDI learn): waits until the user presses a pad, moves a fader or sends a program change, then writes the binding into the Project\'s MIDI map (undoable, like any edit) and answers it. A control change appends its value, scaled from min to max, to params unless value is "trigger". Ask the user to send the message right after calling. Example: {"action": "SET_CONTROL", "params": ["A"]} or {"action": "TRIGGER_CLIP_IN", "params": ["intro"]}',
        annotations: changeAnnotations("Learn a MIDI binding", false),
      },
      operationNamed("midiLearn"),
    ),
  ];
}
