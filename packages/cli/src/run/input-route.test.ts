import { describe, expect, it } from "vitest";
import { routeInput, runsAlone, type RouteContext } from "./input-route.js";

const at = (phase: RouteContext["phase"]): RouteContext => ({
  phase,
  agentCommands: ["shout"],
  isCommand: (name) => /^[\w-]+$/.test(name) && name !== "etc",
});

describe("routeInput", () => {
  it("runs !command at once, whatever the agent does", () => {
    for (const phase of ["ready", "prompting", "starting", "auth-required"] as const) {
      expect(routeInput("! git status ", at(phase))).toEqual({
        kind: "shell",
        command: "git status",
      });
    }
  });

  it("queues prompts during a turn; the client's commands run at once", () => {
    expect(routeInput("next", at("prompting"))).toEqual({ kind: "queue" });
    expect(routeInput("/shout hi", at("prompting"))).toEqual({ kind: "queue" });
    expect(routeInput("/help", at("prompting"))).toEqual({
      kind: "client",
      command: "help",
      args: "",
    });
  });

  it("while the agent starts, queues all but leaving and help", () => {
    expect(routeInput("/mode code", at("starting"))).toEqual({ kind: "queue" });
    expect(routeInput("hello", at("starting"))).toEqual({ kind: "queue" });
    expect(routeInput("/quit", at("starting"))).toMatchObject({ kind: "client", command: "quit" });
    expect(routeInput("/exit", at("starting"))).toMatchObject({ kind: "client", command: "exit" });
  });

  it("asks for a login first, but lets the client's commands through", () => {
    expect(routeInput("hello", at("auth-required"))).toEqual({ kind: "needs-login" });
    expect(routeInput("/login", at("auth-required"))).toEqual({ kind: "login" });
  });

  it("opens pickers for commands alone, and passes their arguments on", () => {
    expect(routeInput("/mode", at("ready"))).toEqual({ kind: "picker", command: "mode" });
    expect(routeInput("/Sessions", at("ready"))).toEqual({ kind: "picker", command: "sessions" });
    expect(routeInput("/mode code", at("ready"))).toEqual({
      kind: "client",
      command: "mode",
      args: "code",
    });
  });

  it("sends the agent's commands and prompts; says so for unknown commands", () => {
    expect(routeInput("/shout hi", at("ready"))).toEqual({ kind: "prompt", text: "/shout hi" });
    expect(routeInput("/nope", at("ready"))).toEqual({ kind: "unknown", command: "nope" });
    expect(routeInput("//nope", at("ready"))).toEqual({ kind: "prompt", text: "/nope" });
    // A path is a prompt.
    expect(routeInput("/etc/hosts: what is it?", at("ready"))).toMatchObject({ kind: "prompt" });
    expect(routeInput("/etc is it there", at("ready"))).toMatchObject({ kind: "prompt" });
  });
});

describe("runsAlone", () => {
  it("runs the client's commands typed ahead, not pickers, /login or prompts", () => {
    expect(runsAlone("/mode code")).toEqual({ command: "mode", args: "code" });
    expect(runsAlone("/mode")).toBeUndefined();
    expect(runsAlone("/login")).toBeUndefined();
    expect(runsAlone("/shout x")).toBeUndefined();
    expect(runsAlone("hello")).toBeUndefined();
  });
});
