/**
 * Permission policies from command-line flags: `--yes`, `--allow-reads`, `--policy FILE`.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { allowAll, allowReadOnly, denyAll } from "acp-kit/node";
import type { PermissionPolicy } from "acp-kit/node";
import { permissionRules } from "acp-kit/node";
import { rememberedAnswers } from "acp-kit/node";
import { UsageError } from "./target.js";

/** The permission flags of `run`, `prompt` and `demo`. */
export interface PolicyFlags {
  /** Allow every permission request. */
  readonly yes?: boolean;
  /** Allow read-only tool calls (read, search, think). */
  readonly allowReads?: boolean;
  /** Reject every request no rule allowed. */
  readonly denyAll?: boolean;
  /** A file of rules: `allow edit src/**`, `deny execute *`, ... */
  readonly policy?: string;
}

/** Where each policy of {@link policiesFromFlags} came from, in words. */
const sources = new WeakMap<PermissionPolicy, string>();

/**
 * Where a policy of {@link policiesFromFlags} came from (`--deny-all`, `--policy rules.txt`,
 * `an earlier "always" answer`), for saying who answered a permission request.
 */
export function policySource(policy: PermissionPolicy): string | undefined {
  return sources.get(policy);
}

function named(policy: PermissionPolicy, source: string): PermissionPolicy {
  sources.set(policy, source);
  return policy;
}

/** The policies for the flags, in order: rules, read-only, remembered answers, yes / deny. */
export function policiesFromFlags(flags: PolicyFlags): PermissionPolicy[] {
  const policies: PermissionPolicy[] = [];
  if (flags.policy !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.policy, "utf8");
    } catch (error) {
      throw new UsageError(
        `Cannot read the policy file ${flags.policy}: ${(error as Error).message}`,
      );
    }
    try {
      policies.push(named(permissionRules(text), `--policy ${flags.policy}`));
    } catch (error) {
      throw new UsageError(`${flags.policy}: ${(error as Error).message}`);
    }
  }
  if (flags.allowReads === true) policies.push(named(allowReadOnly(), "--allow-reads"));
  policies.push(named(rememberedAnswers(), 'an earlier "always" answer'));
  if (flags.yes === true) policies.push(named(allowAll(), "--yes"));
  else if (flags.denyAll === true) policies.push(named(denyAll(), "--deny-all"));
  return policies;
}
