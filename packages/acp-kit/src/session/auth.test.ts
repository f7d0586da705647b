import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { RequestError } from "../jsonrpc/errors.js";
import { AuthRequiredError } from "./auth.js";

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
