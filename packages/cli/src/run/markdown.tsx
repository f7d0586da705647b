/**
 * Markdown for the terminal: `marked`'s lexer, rendered with Ink. Headings, emphasis,
 * inline code, code blocks (framed, with their language), lists (nested, ordered, task),
 * block quotes, rules, links (text and URL) and tables (aligned columns when they fit).
 *
 * @module
 */
import { Box, Text, useStdout } from "ink";
import { Lexer, type Token, type Tokens } from "marked";
import type { ReactNode } from "react";
import stringWidth from "string-width";
import { highlightCode, type CodeSpan } from "./highlight.js";

function inline(tokens: readonly Token[] | undefined, keyPrefix: string): ReactNode[] {
  return (tokens ?? []).map((token, i) => {
    const key = `${keyPrefix}.${i}`;
    switch (token.type) {
      case "strong":
        return (
          <Text key={key} bold>
            {inline((token as Tokens.Strong).tokens, key)}
          </Text>
        );
      case "em":
        return (
          <Text key={key} italic>
            {inline((token as Tokens.Em).tokens, key)}
          </Text>
        );
      case "del":
        return (
          <Text key={key} strikethrough>
            {inline((token as Tokens.Del).tokens, key)}
          </Text>
        );
      case "codespan":
        return (
          <Text key={key} color="cyan">
            {(token as Tokens.Codespan).text}
          </Text>
        );
      case "link": {
        const link = token as Tokens.Link;
        const label = link.text;
        return (
          <Text key={key}>
            <Text color="blue" underline>
              {inline(link.tokens, key)}
            </Text>
            {label !== link.href ? <Text dimColor> ({link.href})</Text> : null}
          </Text>
        );
      }
      case "br":
        return <Text key={key}>{"\n"}</Text>;
      case "text": {
        const text = token as Tokens.Text;
        return text.tokens !== undefined ? (
          <Text key={key}>{inline(text.tokens, key)}</Text>
        ) : (
          <Text key={key}>{decodeEntities(text.text)}</Text>
        );
      }
      case "escape":
        return <Text key={key}>{(token as Tokens.Escape).text}</Text>;
      default:
        return <Text key={key}>{decodeEntities(token.raw)}</Text>;
    }
  });
}

function decodeEntities(text: string): string {
  return text
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");
}

/** A line of code; a blank one keeps its row. */
function CodeLine({ spans }: { spans: readonly CodeSpan[] }): ReactNode {
  if (spans.length === 0) return <Text> </Text>;
  return (
    <Text>
      {spans.map((span, i) => (
        <Text key={i} color={span.color} dimColor={span.dim === true}>
          {span.text}
        </Text>
      ))}
    </Text>
  );
}

/**
 * A fenced code block, framed, with its language: highlighted when the language is known
 * (without colour, as on a pipe or with `NO_COLOR`, the colours are simply left out),
 * else all in one colour.
 */
function CodeBlock({ code }: { code: Tokens.Code }): ReactNode {
  const text = code.text.replace(/\n$/, "");
  const language = code.lang ?? "";
  const highlighted = highlightCode(text, language);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="gray" paddingX={1}>
      {language !== "" ? <Text dimColor>{language}</Text> : null}
      {highlighted !== undefined
        ? highlighted.map((spans, i) => <CodeLine key={i} spans={spans} />)
        : text.split("\n").map((line, i) => (
            <Text key={i} color="yellow">
              {line === "" ? " " : line}
            </Text>
          ))}
    </Box>
  );
}

function List({ list, depth }: { list: Tokens.List; depth: number }): ReactNode {
  const start = typeof list.start === "number" ? list.start : 1;
  return (
    <Box flexDirection="column">
      {list.items.map((item, i) => {
        const bullet = item.task
          ? item.checked === true
            ? "[x]"
            : "[ ]"
          : list.ordered
            ? `${start + i}.`
            : depth % 2 === 0
              ? "•"
              : "◦";
        return (
          <Box key={i} flexDirection="row">
            <Box flexShrink={0}>
              <Text>{`${"  ".repeat(depth)}${bullet} `}</Text>
            </Box>
            <Box flexDirection="column" flexGrow={1} flexShrink={1}>
              {blocks(item.tokens, `li${depth}.${i}`, depth + 1, true)}
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}

/** A cell's text without its Markdown marks (`code` shows as code, not in backticks). */
function plainText(tokens: readonly Token[]): string {
  return tokens
    .map((token) => {
      if ("tokens" in token && token.tokens !== undefined && token.tokens.length > 0)
        return plainText(token.tokens);
      return "text" in token && typeof token.text === "string" ? token.text : token.raw;
    })
    .join("");
}

function padTo(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - stringWidth(text)));
}

/**
 * A table as aligned columns when it fits the terminal; otherwise each row on its own
 * lines, one `header: value` per cell, so nothing wraps into the next column.
 */
function Table({ table }: { table: Tokens.Table }): ReactNode {
  const columns = useStdout().stdout.columns || 80;
  const header = table.header.map((cell) => plainText(cell.tokens));
  const rows = table.rows.map((row) => row.map((cell) => plainText(cell.tokens)));
  const widths = header.map((h, col) =>
    Math.max(stringWidth(h), ...rows.map((r) => stringWidth(r[col] ?? ""))),
  );
  const total = widths.reduce((sum, w) => sum + w, 0) + 2 * Math.max(0, widths.length - 1);
  if (total <= columns - 2) {
    const line = (cells: readonly string[]): string =>
      cells
        .map((cell, col) => padTo(cell, widths[col] ?? 0))
        .join("  ")
        .trimEnd();
    return (
      <Box flexDirection="column">
        <Text bold>{line(header)}</Text>
        {rows.map((row, i) => (
          <Text key={i}>{line(row)}</Text>
        ))}
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      {rows.map((row, i) => (
        <Box key={i} flexDirection="column" marginTop={i === 0 ? 0 : 1}>
          {row.map((cell, col) => (
            <Text key={col}>
              <Text bold>{header[col] ?? ""}:</Text> {cell}
            </Text>
          ))}
        </Box>
      ))}
    </Box>
  );
}

function blocks(
  tokens: readonly Token[],
  keyPrefix: string,
  depth: number,
  tight = false,
): ReactNode[] {
  const out: ReactNode[] = [];
  tokens.forEach((token, i) => {
    const key = `${keyPrefix}.${i}`;
    switch (token.type) {
      case "space":
        return;
      case "heading": {
        const heading = token as Tokens.Heading;
        out.push(
          <Text
            key={key}
            bold
            color={heading.depth <= 2 ? "magenta" : undefined}
            underline={heading.depth === 1}
          >
            {inline(heading.tokens, key)}
          </Text>,
        );
        return;
      }
      case "paragraph":
        out.push(<Text key={key}>{inline((token as Tokens.Paragraph).tokens, key)}</Text>);
        return;
      case "text": {
        const text = token as Tokens.Text;
        out.push(
          <Text key={key}>{text.tokens !== undefined ? inline(text.tokens, key) : text.text}</Text>,
        );
        return;
      }
      case "code":
        out.push(<CodeBlock key={key} code={token as Tokens.Code} />);
        return;
      case "list":
        out.push(<List key={key} list={token as Tokens.List} depth={depth} />);
        return;
      case "blockquote":
        out.push(
          <Box
            key={key}
            borderStyle="single"
            borderLeft
            borderTop={false}
            borderRight={false}
            borderBottom={false}
            paddingLeft={1}
          >
            <Box flexDirection="column">
              {blocks((token as Tokens.Blockquote).tokens, key, depth)}
            </Box>
          </Box>,
        );
        return;
      case "hr":
        out.push(
          <Text key={key} dimColor>
            {"─".repeat(40)}
          </Text>,
        );
        return;
      case "table":
        out.push(<Table key={key} table={token as Tokens.Table} />);
        return;
      default:
        out.push(<Text key={key}>{token.raw.trimEnd()}</Text>);
    }
  });
  if (tight) return out;
  // Separate blocks by a blank line, as Markdown does.
  return out.flatMap((node, i) =>
    i === 0 ? [node] : [<Text key={`${keyPrefix}.gap${i}`}> </Text>, node],
  );
}

/**
 * Block quotes and list items nested deeper than this on one line (`> > - > ...`), or a
 * list item indented twice this many columns, make the text shown as it is: `marked`'s
 * lexer recurses once per level (5,000 levels overflow the stack, and took seconds to).
 */
const MAX_NESTING = 32;

/** A run of this many emphasis marks (`*`, `_`, `~`) too: the lexer is quadratic in it. */
const MAX_MARK_RUN = 500;

const MARK_RUN = new RegExp(`[*_~]{${MAX_MARK_RUN},}`);

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * The end of a list marker (`-`, `+`, `*`, `1.`, `1)`) at `at` followed by a space or the
 * line's end; -1 when there is none.
 */
function listMarkerEnd(text: string, at: number): number {
  let i = at;
  const c = text.charCodeAt(i);
  if (c === 0x2d || c === 0x2b || c === 0x2a) i++;
  else {
    while (i - at < 9 && isDigit(text.charCodeAt(i))) i++;
    const after = text.charCodeAt(i);
    if (i === at || (after !== 0x2e && after !== 0x29)) return -1;
    i++;
  }
  const next = text.charCodeAt(i);
  return i >= text.length || isSpace(next) || next === 0x0a ? i : -1;
}

/**
 * True when `text` nests block quotes or lists deeper than the lexer can take (see
 * {@link MAX_NESTING}), or has a run of emphasis marks it is slow on. One pass, no
 * recursion.
 */
export function tooDeepForMarkdown(text: string): boolean {
  if (MARK_RUN.test(text)) return true;
  let i = 0;
  while (i < text.length) {
    let depth = 0;
    let indent = 0;
    for (;;) {
      while (isSpace(text.charCodeAt(i))) {
        if (depth === 0) indent++;
        i++;
      }
      if (text.charCodeAt(i) === 0x3e) {
        i++;
      } else {
        const end = listMarkerEnd(text, i);
        if (end === -1) break;
        if (depth === 0 && indent >= 2 * MAX_NESTING) return true;
        i = end;
      }
      if (++depth > MAX_NESTING) return true;
    }
    const newline = text.indexOf("\n", i);
    if (newline === -1) break;
    i = newline + 1;
  }
  return false;
}

/**
 * Renders Markdown `text` (also while it is still streaming in); text nested too deep for
 * the lexer is shown as it is.
 */
export function Markdown({ text }: { text: string }): ReactNode {
  if (tooDeepForMarkdown(text)) return <Text>{text}</Text>;
  const tokens = new Lexer({ gfm: true }).lex(text);
  return <Box flexDirection="column">{blocks(tokens, "md", 0)}</Box>;
}
