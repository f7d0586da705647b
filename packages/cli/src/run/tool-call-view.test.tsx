import { PassThrough } from "node:stream";
import { render } from "ink";
import { describe, expect, it } from "vitest";
import { DiffView } from "./tool-call-view.js";

/** Renders a component once, without colours, and returns the text drawn. */
async function draw(node: React.ReactElement): Promise<string> {
  const stdout = Object.assign(new PassThrough(), { columns: 80, rows: 24, isTTY: false });
  let output = "";
  stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const instance = render(node, { stdout: stdout as unknown as NodeJS.WriteStream, debug: true });
  await new Promise((resolve) => setTimeout(resolve, 20));
  instance.unmount();
  // eslint-disable-next-line no-control-regex
  return output.replace(/\u001b\[[0-9;]*m/g, "");
}

describe("DiffView", () => {
  it("shows added and removed lines with the path", async () => {
    const text = await draw(
      <DiffView path="/p/a.md" oldText={"one\ntwo\n"} newText={"one\n2\n"} />,
    );
    expect(text).toContain("/p/a.md");
    expect(text).toContain("-two");
    expect(text).toContain("+2");
  });

  it("says when there is nothing to change", async () => {
    const text = await draw(<DiffView path="/p/a.md" oldText={"same\n"} newText={"same\n"} />);
    expect(text).toContain("(no changes: the file already has this text)");
  });

  it("names a new file and cuts a long diff", async () => {
    const long = Array.from({ length: 60 }, (_, i) => `line ${i}`).join("\n");
    const text = await draw(
      <DiffView path="/p/new.md" oldText={null} newText={long} maxLines={10} />,
    );
    expect(text).toContain("new file /p/new.md");
    expect(text).toContain("more lines");
  });
});
