import { describe, expect, it } from "vitest";
import { allCommands, oneLine } from "./slash.js";

describe("oneLine", () => {
  it("keeps a command's description to its first line, cut to 80 characters", () => {
    expect(oneLine("Review the code")).toBe("Review the code");
    expect(oneLine("\n  Review the code\n\nUsage: /review [path]\n- more")).toBe(
      "Review the code …",
    );
    const long = oneLine("x".repeat(200));
    expect(long).toHaveLength(80);
    expect(long.endsWith("…")).toBe(true);
  });

  it("is applied to the agent's commands offered for help and completion", () => {
    const [command] = allCommands([
      { name: "review", description: "Review changes\nwith a long explanation", input: null },
    ]).filter((c) => c.source === "agent");
    expect(command?.description).toBe("Review changes …");
  });
});
