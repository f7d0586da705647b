/**
 * Text that comes from outside (a registry's names and versions, an agent's session ids
 * and titles) made safe to print on a terminal: an escape sequence in it could move the
 * cursor, rewrite what is on the screen, set the window's title or hide what follows.
 *
 * @module
 */

/** Escape sequences: CSI, OSC, DCS/SOS/PM/APC strings (7- and 8-bit), and two-byte ones. */
const SEQUENCES =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|\u001b[ -~]?/g;
/** Control characters other than line breaks and tabs. */
// eslint-disable-next-line no-control-regex -- as above
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** Every control character, line breaks and tabs included. */
// eslint-disable-next-line no-control-regex -- as above
const ALL_CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * `text` without terminal escape sequences and control characters. A one-line field (the
 * default) loses line breaks and tabs too, each made a space; with `multiline` they stay.
 *
 * @param text - Text from a registry or an agent.
 * @param multiline - Keep line breaks and tabs.
 */
export function printable(text: string, multiline = false): string {
  const bare = text.replace(SEQUENCES, "");
  return multiline
    ? bare.replace(CONTROLS, "")
    : bare.replace(/[\n\r\t]+/g, " ").replace(ALL_CONTROLS, "");
}
