/**
 * Typing for variants of open unions that this version of acp-kit does not know.
 *
 * @module
 */

/**
 * The tag type of a union variant this version of acp-kit does not know.
 *
 * At run time the tag is the plain string the peer sent (for example a `sessionUpdate`
 * kind added by a newer protocol version). The type is a template literal that no known
 * tag matches, so TypeScript keeps narrowing the known variants by their tags, and a
 * `switch` is only exhaustive once it handles the unknown case as well. Compare it as a
 * `string` when you need to (`(update.sessionUpdate as string) === "..."`).
 */
export type UnknownTag = `${string} (unknown to acp-kit)`;

/**
 * A variant of a union whose discriminator `K` holds a tag this version does not know.
 * All of its other fields are kept exactly as received.
 */
export type UnknownVariant<K extends string> = Record<K, UnknownTag> & Record<string, unknown>;
