// @ts-check
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/", "coverage/", "docs/api/", "**/node_modules/"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      // We use `as const` objects and unions instead of enums and namespaces.
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "Use an `as const` object and a union type." },
        { selector: "TSModuleDeclaration[kind='namespace']", message: "Use ES modules." },
      ],
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/consistent-type-definitions": "off",
      "@typescript-eslint/no-confusing-void-expression": "off",
      "@typescript-eslint/prefer-promise-reject-errors": "off",
      "@typescript-eslint/no-invalid-void-type": "off",
    },
  },
  {
    // The package root is runtime-neutral: no Node built-ins, and never the official SDK.
    files: ["packages/acp-kit/src/**/*.ts"],
    ignores: [
      "packages/acp-kit/src/node/**",
      "packages/acp-kit/src/testing/**",
      // acp-kit/http's Node adapter; the server core beside it stays runtime-neutral.
      "packages/acp-kit/src/http/server/node.ts",
      "packages/acp-kit/src/**/*.test.ts",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["node:*"], message: "The root entry must stay runtime-neutral." },
            {
              group: ["@agentclientprotocol/*", "acp-sdk-classic"],
              message: "The library never imports the official SDK.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["packages/acp-kit/src/schema/**/*.gen.ts"],
    rules: {
      "@typescript-eslint/no-unnecessary-condition": "off",
      "@typescript-eslint/no-redundant-type-constituents": "off",
    },
  },
  {
    // Tests, scripts and benchmarks may assert what they just checked.
    files: ["test/**/*.ts", "**/*.test.ts", "scripts/**/*.ts", "bench/**/*.ts", "examples/**/*.ts"],
    rules: {
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // CommonJS fixtures load modules the CommonJS way.
    files: ["**/*.cjs"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  prettier,
);
