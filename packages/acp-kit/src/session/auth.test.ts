import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { RequestError } from "../jsonrpc/errors.js";
import type { AuthMethod } from "../index.js";
import { AuthRequiredError, envVarsOf, loginPlan } from "./auth.js";

describe("AuthRequiredError", () => {
  const params = {
    cwd: "/work",
    mcpServers: [
      { name: "db", command: "db-mcp", args: [], env: [{ name: "TOKEN", value: "s3cret" }] },
    ],
  };
  const error = new AuthRequiredError(RequestError.authRequired(), {
    method: "session/new",
    params,
    authMethods: [],
    retry: () => Promise.resolve(),
  });

  it("keeps the failed request's params, but out of what prints the error", () => {
    expect(error.params).toBe(params);
    expect(JSON.stringify(error)).not.toContain("s3cret");
    expect(inspect(error)).not.toContain("s3cret");
    expect(Object.keys(error)).not.toContain("params");
  });
});

describe("envVarsOf", () => {
  it("reads `vars` and the legacy `varName` without changing the method", () => {
    const method = {
      id: "key",
      name: "API key",
      type: "env_var",
      vars: [{ name: "OPENAI_API_KEY", label: "Key" }, "ORG_ID"],
      varName: "LEGACY_KEY",
    } as unknown as AuthMethod;
    const before = JSON.stringify(method);
    expect(envVarsOf(method)?.map((v) => v.name)).toEqual([
      "OPENAI_API_KEY",
      "ORG_ID",
      "LEGACY_KEY",
    ]);
    expect(envVarsOf(method)).toHaveLength(3);
    expect(JSON.stringify(method)).toBe(before);
  });

  it("reads the variables an agent method's description names (Gemini's API key)", () => {
    const gemini: AuthMethod = {
      id: "gemini-api-key",
      name: "Use Gemini API key",
      description: "Requires setting the `GEMINI_API_KEY` environment variable",
    };
    expect(envVarsOf(gemini)).toEqual([
      { name: "GEMINI_API_KEY", label: null, secret: true, optional: false },
    ]);
    expect(loginPlan(gemini)).toMatchObject({ kind: "env_var", methodId: "gemini-api-key" });
    for (const description of [
      undefined,
      "Log in with Google",
      "Set `lower_case` environment variable",
    ]) {
      const method = { id: "m", name: "M", ...(description === undefined ? {} : { description }) };
      expect(envVarsOf(method)).toBeUndefined();
      expect(loginPlan(method).kind).toBe("agent");
    }
    const terminal = { ...gemini, type: "terminal" } as unknown as AuthMethod;
    expect(envVarsOf(terminal)).toBeUndefined();
  });
});
