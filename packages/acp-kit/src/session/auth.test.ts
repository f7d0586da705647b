import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { RequestError } from "../jsonrpc/errors.js";
import type { AuthMethod } from "../index.js";
import { AuthRequiredError, envVarsOf } from "./auth.js";

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
});
