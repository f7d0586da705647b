/**
 * {@link splitCommandLine}: one command string into its words, as a POSIX shell splits
 * them (without expanding anything), for conductor components given as one string each.
 *
 * @module
 */

/**
 * Splits a command line into words: blanks separate words; `'...'` keeps everything
 * literally; `"..."` keeps everything but `\"`, `\\`, `` \` `` and `\$`, which lose their
 * backslash; a backslash outside quotes keeps the next character literally. Nothing is
 * expanded (no variables, globs or `~`). Throws a `SyntaxError` on an unclosed quote or a
 * trailing backslash.
 *
 * ```ts
 * splitCommandLine(`node "my proxy.js" --name 'a b'`); // ["node", "my proxy.js", "--name", "a b"]
 * ```
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line.charAt(i);
    if (c === " " || c === "\t" || c === "\n") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new SyntaxError(`Unclosed ' in the command: ${line}`);
      word += line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new SyntaxError(`Unclosed " in the command: ${line}`);
        const d = line.charAt(i);
        if (d === '"') break;
        const next = line.charAt(i + 1);
        if (d === "\\" && (next === '"' || next === "\\" || next === "`" || next === "$")) {
          word += next;
          i += 2;
        } else {
          word += d;
          i++;
        }
      }
      i++;
    } else if (c === "\\") {
      if (i + 1 >= line.length) throw new SyntaxError(`Trailing \\ in the command: ${line}`);
      word += line.charAt(i + 1);
      i += 2;
    } else {
      word += c;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * Words as one command line that {@link splitCommandLine} (or a POSIX shell) splits back
 * into the same words: a word with anything but letters, digits and `-_./:=@%+,` is put
 * in single quotes.
 *
 * ```ts
 * quoteCommandLine(["node", "my proxy.js", "it's"]); // `node 'my proxy.js' 'it'\''s'`
 * ```
 */
export function quoteCommandLine(words: readonly string[]): string {
  return words
    .map((word) =>
      word !== "" && /^[\w\-./:=@%+,]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`,
    )
    .join(" ");
}
