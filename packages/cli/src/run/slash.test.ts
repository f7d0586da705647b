import { describe, expect, it } from "vitest";
import type { AgentController } from "../controller.js";
import { runClientCommand } from "./slash-commands.js";
import { allCommands, completeLine, oneLine, valueCompletions } from "./slash.js";
import { UiModel } from "./ui-model.js";

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

describe("completeLine", () => {
  const commands = allCommands(null);
  const values = { mode: ["ask", "code"], model: ["fast-1", "smart-2"], sessions: [] };

  it("completes command names, then the values of /mode, /model and /sessions", () => {
    expect(completeLine("/mo", commands, values)).toEqual(["/mode ", "/model "]);
    expect(completeLine("/mode ", commands, values)).toEqual(["/mode ask", "/mode code"]);
    expect(completeLine("/mode c", commands, values)).toEqual(["/mode code"]);
    expect(completeLine("/model s", commands, values)).toEqual(["/model smart-2"]);
    expect(completeLine("/mode code", commands, values)).toEqual([]);
    expect(completeLine("/sessions ", commands, values)).toEqual([]);
    expect(completeLine("/config ", commands, values)).toEqual([]);
    expect(valueCompletions("/mode a b", values)).toBeUndefined();
  });
});

describe("/help", () => {
  it("prints each command on one line, the agent's long descriptions cut", async () => {
    const ui = new UiModel();
    const controller = {
      state: {
        availableCommands: [
          {
            name: "review",
            description: "Review the changes\n\nUsage: /review [path]\nLong text follows.",
            input: null,
          },
          { name: "explain", description: "y".repeat(300), input: null },
        ],
      },
    } as unknown as AgentController;
    await runClientCommand("help", "", controller, ui);
    const entry = ui.transcript.at(-1);
    const text = entry?.kind === "notice" ? entry.notice.text : "";
    const lines = text.split("\n");
    expect(lines).toContain("/review  Review the changes …  (agent)");
    expect(text).not.toContain("Usage: /review");
    const explain = lines.find((line) => line.startsWith("/explain"));
    expect(explain?.length).toBeLessThan(100);
    expect(lines.some((line) => line.startsWith("/login  "))).toBe(true);
    expect(lines.some((line) => line.startsWith("/logout  "))).toBe(true);
  });
});

describe("/logout", () => {
  it("says so when the agent cannot log out and no login variables were given", async () => {
    const ui = new UiModel();
    let called = false;
    const controller = {
      canLogout: false,
      logout: () => {
        called = true;
        return Promise.resolve({ loggedOut: false, dropped: [] });
      },
    } as unknown as AgentController;
    await runClientCommand("logout", "", controller, ui);
    const entry = ui.transcript.at(-1);
    expect(entry?.kind === "notice" ? entry.notice.text : "").toContain(
      "This agent does not support logout",
    );
    expect(called).toBe(false);
  });

  it("says what was done: the agent's logout, the variables dropped", async () => {
    const ui = new UiModel();
    const controller = {
      canLogout: true,
      logout: () => Promise.resolve({ loggedOut: true, dropped: ["MY_KEY"] }),
    } as unknown as AgentController;
    await runClientCommand("logout", "", controller, ui);
    const entry = ui.transcript.at(-1);
    expect(entry?.kind === "notice" ? entry.notice.text : "").toBe(
      "Logged out. Dropped MY_KEY (given at the login); the agent restarted without them.",
    );
  });
});
