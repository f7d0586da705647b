/**
 * How the live view's permission requests were answered, so that a refused or cancelled
 * tool call keeps its row with what became of it. Some agents (Codex) ask before they
 * announce the tool call and never announce a refused one: that call is added to the
 * session's thread (client-local) at the moment of the answer, where it happened.
 *
 * @module
 */
import type {
  Client,
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionStore,
  ToolCall,
} from "acp-kit";
import { toolCallInQuestion } from "acp-kit/internal";

/** What became of a permission request. */
export interface PermissionAnswer {
  readonly outcome: "allowed" | "refused" | "cancelled";
  /** Whether the person answered it (else a policy, or the turn's cancel). */
  readonly byYou: boolean;
}

function keyOf(sessionId: string, toolCallId: string): string {
  return `${sessionId}\u0000${toolCallId}`;
}

/** What a request's answer means (the chosen option's kind). */
function outcomeOf(
  options: readonly PermissionOption[],
  response: RequestPermissionResponse,
): PermissionAnswer["outcome"] {
  const outcome = response.outcome;
  if (outcome.outcome !== "selected") return "cancelled";
  const kind = options.find((o) => o.optionId === outcome.optionId)?.kind;
  return kind === "allow_once" || kind === "allow_always" ? "allowed" : "refused";
}

/** The request's tool call as a `tool_call` update (for a call the agent never announced). */
function announced(request: RequestPermissionRequest): ToolCall {
  const { toolCallId, title, kind, status, content, locations, rawInput, rawOutput } =
    request.toolCall;
  return {
    toolCallId,
    title: title ?? "",
    ...(kind == null ? {} : { kind }),
    ...(status == null ? {} : { status }),
    ...(content == null ? {} : { content }),
    ...(locations == null ? {} : { locations }),
    ...(rawInput === undefined ? {} : { rawInput }),
    ...(rawOutput === undefined ? {} : { rawOutput }),
  };
}

/** See the module comment. */
export class PermissionAnswers {
  private readonly answers = new Map<string, PermissionAnswer>();
  /** The requests the person answered (by `sessionId` and tool call id), until recorded. */
  private readonly answeredByYou = new Set<string>();

  /** Records the answers about the sessions of the store `sessions` returns. */
  constructor(private readonly sessions: () => SessionStore) {}

  /** How the request about this tool call was answered last, if one was. */
  get(sessionId: string, toolCallId: string): PermissionAnswer | undefined {
    return this.answers.get(keyOf(sessionId, toolCallId));
  }

  /** Wraps the person's prompt (asked when no policy answers), to tell their answers apart. */
  asked<A extends unknown[], R>(
    prompt: (request: RequestPermissionRequest, ...rest: A) => Promise<R>,
  ): (request: RequestPermissionRequest, ...rest: A) => Promise<R> {
    return async (request, ...rest) => {
      const answer = await prompt(request, ...rest);
      this.answeredByYou.add(keyOf(request.sessionId, request.toolCall.toolCallId));
      return answer;
    };
  }

  /** The client wrapper that records each answer (for `AgentController`'s `wrapClient`). */
  wrap = (client: Client): Client => ({
    ...client,
    requestPermission: async (params, ...rest) => {
      const key = keyOf(params.sessionId, params.toolCall.toolCallId);
      let response: RequestPermissionResponse;
      try {
        response = await client.requestPermission(params, ...rest);
      } catch (error) {
        this.record(params, { outcome: "cancelled", byYou: this.answeredByYou.delete(key) });
        throw error;
      }
      const byYou = this.answeredByYou.delete(key);
      this.record(params, { outcome: outcomeOf(params.options, response), byYou });
      return response;
    },
  });

  private record(request: RequestPermissionRequest, answer: PermissionAnswer): void {
    const { sessionId, toolCall } = request;
    this.answers.set(keyOf(sessionId, toolCall.toolCallId), answer);
    const store = this.sessions();
    const state = store.get(sessionId);
    if (answer.outcome === "allowed" || state === undefined) return;
    // (A call the thread lacks comes back as a placeholder; the thread's own is not one.)
    if (!toolCallInQuestion(state, toolCall).placeholder) return;
    // Never announced and now never will be: the row is kept, with the answer.
    store.apply({ sessionId, update: { sessionUpdate: "tool_call", ...announced(request) } });
  }
}

/** What the row of a tool call says of its request's answer, when it was not allowed. */
export function answerText(answer: PermissionAnswer | undefined): string | undefined {
  if (answer === undefined || answer.outcome === "allowed") return undefined;
  if (answer.outcome === "cancelled") return "cancelled at the permission request";
  return answer.byYou ? "refused by you" : "refused by a policy";
}
