/**
 * Permission policies for ACP clients: answering `session/request_permission`.
 *
 * - Pure policies ({@link PermissionPolicy}) decide a request or have no opinion:
 *   {@link allowAll}, {@link denyAll}, {@link allowReadOnly}, {@link permissionRules}
 *   (the `<allow|deny> <kind|*> <pattern>` rule language) and {@link rememberedAnswers}.
 *   {@link decidePermission} and {@link composePolicies} run them in order; a verdict is
 *   turned into one of the options the agent offered ({@link selectOption}).
 * - {@link PermissionBroker} is a client's `requestPermission`: it runs the policies
 *   with the session's cwd and remembered `*_always` answers, falls back to an
 *   interactive {@link PermissionPrompt}, and answers pending requests `cancelled` when
 *   the client cancels the turn ({@link PermissionBroker.cancelSession}).
 *
 * When nothing decides, the answer is the agent's reject option, or `cancelled` when it
 * offered none ({@link safePermissionResponse}).
 *
 * @module
 */
export {
  allowAll,
  allowReadOnly,
  cancelledResponse,
  composePolicies,
  decidePermission,
  denyAll,
  permissionContext,
  READ_ONLY_KINDS,
  rememberedAnswers,
  safePermissionResponse,
  selectedResponse,
  selectOption,
  type AllowReadOnlyOptions,
  type PermissionContext,
  type PolicyDecision,
  type PermissionPolicy,
  type PermissionVerdict,
  type PolicyOptions,
} from "./policy.js";
export {
  parsePermissionRules,
  permissionRules,
  PermissionRuleError,
  TOOL_KINDS,
  type PermissionRule,
  type PermissionRuleEffect,
  type PermissionRulesOptions,
} from "./rules.js";
export {
  permissionMemoryKey,
  toolCallCommand,
  toolCallKind,
  toolCallPaths,
  type PermissionPath,
} from "./subjects.js";
export {
  PermissionBroker,
  type CancelSessionOptions,
  type PermissionBrokerOptions,
  type PermissionPrompt,
  type PermissionPromptInfo,
} from "./broker.js";
