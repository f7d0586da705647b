/**
 * {@link ClientToolkit}: the file system, terminals, permissions and session state of an
 * ACP client, wired into one {@link Client} implementation.
 *
 * @module
 */
import path from "node:path";
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import { RequestError } from "../jsonrpc/errors.js";
import type { Client } from "../peer/client.js";
import type { ClientSideConnection } from "../peer/client-side-connection.js";
import type * as schema from "../schema/types.gen.js";
import { SessionClient } from "../session/session-client.js";
import { SessionStore } from "../session/store.js";
import { FileSystemHandler, type FileSystemHandlerOptions } from "./fs/handler.js";
import { confinePath, isInside, realRoots } from "./fs/confine.js";
import { PermissionBroker, type PermissionBrokerOptions } from "./permissions/broker.js";
import type { TerminalManagerOptions } from "./terminals/options.js";
import { TerminalManager } from "./terminals/manager.js";

/** A root as given, and its real path. */
interface RealRoot {
  readonly root: string;
  readonly real: string;
}

/** The real path of each root that can be resolved, with the root as given. */
async function resolveRoots(roots: readonly string[]): Promise<RealRoot[]> {
  const reals = await Promise.all(roots.map((root) => realRoots([root])));
  return roots.flatMap((root, i) => (reals[i] ?? []).map((real) => ({ root, real })));
}

/** Options of {@link ClientToolkit}. */
export interface ClientToolkitOptions {
  /**
   * Serve `fs/read_text_file` and `fs/write_text_file` inside each session's roots (its
   * `cwd` and `additionalDirectories`). Default on; `false` turns it off (and the
   * capability is not advertised); a terminal's `cwd` is confined to the roots either way.
   */
  readonly files?: FileSystemHandlerOptions | false;
  /**
   * Serve `terminal/*` (commands run in their own process groups, killed on release and
   * on {@link ClientToolkit.dispose}). Default on; `false` turns it off.
   */
  readonly terminals?: TerminalManagerOptions | false;
  /**
   * How permission requests are answered: broker options (policies and an interactive
   * prompt) or a broker of your own. Default: remembered `*_always` answers, otherwise
   * the safe answer (reject).
   */
  readonly permissions?: PermissionBrokerOptions | PermissionBroker;
  /** The session store to fold updates into. Default: a new one. */
  readonly sessions?: SessionStore;
  /**
   * Time limit of `session/new`, `session/load` and `session/resume`, in ms (default
   * 120 000; `0` or `Infinity`: none). See `SessionClientOptions.setupTimeoutMs`.
   */
  readonly sessionSetupTimeoutMs?: number;
  /**
   * More client methods, or replacements for the toolkit's: `createElicitation`,
   * `extMethod`, your own `sessionUpdate` (called after the store is updated), ...
   */
  readonly handlers?: Partial<Client>;
}

/** Where a session's files may be: its working directory and extra roots. */
export interface SessionPlace {
  /** The session's working directory (absolute). */
  readonly cwd: string;
  /** Extra workspace roots (absolute). */
  readonly additionalDirectories?: readonly string[] | undefined;
}

/**
 * A complete ACP client: file system and terminal handlers confined to each session,
 * permission policies, and a {@link SessionStore} that folds every `session/update` into
 * a thread. Hand {@link ClientToolkit.client} to a `ClientSideConnection`, advertise
 * {@link ClientToolkit.capabilities} in `initialize`, and create sessions through the
 * toolkit (or through its {@link ClientToolkit.sessionClient} for the connection) so that
 * it knows their roots.
 *
 * ```ts
 * const toolkit = new ClientToolkit({ permissions: { policies: [allowReadOnly()] } });
 * const agent = new ClientSideConnection(() => toolkit.client(), stream);
 * await agent.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: toolkit.capabilities });
 * const { sessionId } = await toolkit.newSession(agent, { cwd: process.cwd(), mcpServers: [] });
 * await toolkit.prompt(agent, { sessionId, prompt: [{ type: "text", text: "Hello" }] });
 * ```
 */
export class ClientToolkit {
  /** The file system handler, unless turned off. */
  readonly files: FileSystemHandler | undefined;
  /** The terminal manager, unless turned off. */
  readonly terminals: TerminalManager | undefined;
  /** The permission broker. */
  readonly permissions: PermissionBroker;
  /** Every session's state. */
  readonly sessions: SessionStore;
  private readonly places = new Map<string, SessionPlace>();
  /**
   * Each tracked session's roots with their real paths, resolved once, when it was tracked
   * (a root that cannot be resolved is left out).
   */
  private readonly realPlaces = new Map<string, Promise<RealRoot[]>>();
  /** The session client of each connection (whose closing kills its sessions' terminals). */
  private readonly clients = new WeakMap<ClientSideConnection, SessionClient>();
  private readonly handlers: Partial<Client>;
  private readonly sessionSetupTimeoutMs: number | undefined;

  /**
   * Creates the handlers; nothing runs until the client is connected.
   *
   * @param options - What to serve and how to answer permission requests.
   */
  constructor(options: ClientToolkitOptions = {}) {
    this.files = options.files === false ? undefined : new FileSystemHandler(options.files);
    this.terminals =
      options.terminals === false
        ? undefined
        : new TerminalManager({
            cwd: (sessionId) => this.places.get(sessionId)?.cwd,
            ...options.terminals,
          });
    this.permissions =
      options.permissions instanceof PermissionBroker
        ? options.permissions
        : new PermissionBroker(options.permissions);
    this.sessions = options.sessions ?? new SessionStore();
    this.handlers = options.handlers ?? {};
    this.sessionSetupTimeoutMs = options.sessionSetupTimeoutMs;
  }

  /** The capabilities to send in `initialize`: exactly what this toolkit serves. */
  get capabilities(): schema.ClientCapabilities {
    const files = this.files !== undefined || this.handlers.readTextFile !== undefined;
    return {
      fs: { readTextFile: files, writeTextFile: files },
      terminal: this.terminals !== undefined || this.handlers.createTerminal !== undefined,
    };
  }

  /** The {@link Client} implementation to hand to a `ClientSideConnection`. */
  client(): Client {
    const { files, terminals, handlers } = this;
    const served: Partial<Client> = {
      requestPermission: async (params, context) =>
        this.permissions.requestPermission(await this.withLinkTargets(params), context),
      sessionUpdate: async (params) => {
        this.sessions.apply(params);
        await handlers.sessionUpdate?.(params);
      },
    };
    if (files !== undefined) {
      served.readTextFile = (params, context) => files.readTextFile(params, context);
      served.writeTextFile = (params, context) => files.writeTextFile(params, context);
    }
    if (terminals !== undefined) {
      served.createTerminal = async (params) => {
        // A terminal runs inside the session's roots, whether or not files are served.
        params = { ...params, cwd: await this.confineCwd(params) };
        return terminals.createTerminal(params);
      };
      served.terminalOutput = (params) => terminals.terminalOutput(params);
      served.waitForTerminalExit = (params, context) =>
        terminals.waitForTerminalExit(params, context);
      served.killTerminal = (params) => terminals.killTerminal(params);
      served.releaseTerminal = (params) => terminals.releaseTerminal(params);
    }
    const { sessionUpdate: _own, ...rest } = handlers;
    return { ...served, ...rest } as Client;
  }

  /**
   * The real directory a terminal of the session may run in: the request's `cwd` (or the
   * session's), confined to the session's roots and read as a directory (`/p/sub/` and
   * `/p/.` are fine). Through the file handler when there is one (it may know roots of
   * its own), otherwise against the roots tracked here.
   */
  private async confineCwd(params: schema.CreateTerminalRequest): Promise<string> {
    const { sessionId } = params;
    const place = this.places.get(sessionId);
    const cwd = params.cwd ?? place?.cwd;
    if (this.files !== undefined && cwd != null) return this.files.resolvePath(sessionId, cwd);
    if (place === undefined || cwd == null) {
      throw RequestError.invalidParams(
        { reason: "unknown_session", sessionId },
        `Cannot run a terminal: unknown session ${sessionId}, so it has no roots to run in.`,
      );
    }
    const roots = [place.cwd, ...(place.additionalDirectories ?? [])];
    const reals = (await (this.realPlaces.get(sessionId) ?? resolveRoots(roots))).map(
      (r) => r.real,
    );
    return (await confinePath(cwd, roots, reals, undefined, true)).real;
  }

  /**
   * The request with, for each location that is a link inside the session's roots, where
   * the link leads added as another location: path rules then judge both (a deny for
   * `.env` catches `src/config -> ../.env`; an allow must cover both).
   */
  private async withLinkTargets(
    params: schema.RequestPermissionRequest,
  ): Promise<schema.RequestPermissionRequest> {
    const { files } = this;
    const reals = this.realPlaces.get(params.sessionId);
    const locations = params.toolCall.locations ?? [];
    if (files === undefined || reals === undefined || locations.length === 0) return params;
    const roots = await reals;
    const targets = await Promise.all(
      locations.map(async ({ path: where }) => {
        if (!path.isAbsolute(where)) return undefined;
        const real = await files.resolvePath(params.sessionId, where).catch(() => undefined);
        if (real === undefined) return undefined;
        // The target in the same spelling as the roots (a root may itself be a link).
        const inside = roots.find((root) => isInside(real, root.real));
        const target =
          inside === undefined ? real : path.join(inside.root, path.relative(inside.real, real));
        return target === where ? undefined : target;
      }),
    );
    const added = targets.filter((t): t is string => t !== undefined).map((t) => ({ path: t }));
    if (added.length === 0) return params;
    return { ...params, toolCall: { ...params.toolCall, locations: [...locations, ...added] } };
  }

  /**
   * Records where a session lives, so that file access, terminals and path-based
   * permission rules use its roots. The session helpers below call it for you.
   */
  trackSession(sessionId: string, place: SessionPlace): void {
    this.places.set(sessionId, place);
    // Resolved once, now, as the file handler does: a root swapped for a link later is not
    // followed, and permission requests do not resolve the roots again.
    this.realPlaces.set(
      sessionId,
      resolveRoots([place.cwd, ...(place.additionalDirectories ?? [])]),
    );
    this.files?.addSession(sessionId, {
      cwd: place.cwd,
      additionalDirectories: place.additionalDirectories ?? [],
    });
    this.permissions.trackSession(sessionId, { cwd: place.cwd });
  }

  /** Forgets a session: its roots, its terminals (killed) and its remembered answers. */
  forgetSession(sessionId: string): void {
    this.places.delete(sessionId);
    this.realPlaces.delete(sessionId);
    this.files?.removeSession(sessionId);
    this.terminals?.releaseSession(sessionId);
    this.permissions.forgetSession(sessionId);
  }

  /**
   * The {@link SessionClient} of `agent`'s connection, made on first use: it shares this
   * toolkit's store, tells the toolkit each session's roots (so files, terminals and path
   * rules follow them), answers pending permission requests `cancelled` on a cancel,
   * forgets a closed session, and, when the connection closes, the terminals of the
   * sessions opened through it are killed (the toolkit stays usable for other connections;
   * {@link ClientToolkit.dispose} is yours to call).
   * Give it the agent's `initialize` answer (here or through its `agentInfo`) for what
   * depends on the agent's capabilities and auth methods.
   */
  sessionClient(agent: ClientSideConnection, agentInfo?: schema.InitializeResponse): SessionClient {
    let client = this.clients.get(agent);
    if (client === undefined) {
      // The sessions opened through this connection: its closing kills their terminals
      // only (other connections of this toolkit keep theirs, and can still open new ones).
      const opened = new Set<string>();
      client = new SessionClient(agent, {
        store: this.sessions,
        ...(this.sessionSetupTimeoutMs === undefined
          ? {}
          : { setupTimeoutMs: this.sessionSetupTimeoutMs }),
        hooks: {
          opening: (sessionId, roots) => {
            opened.add(sessionId);
            this.trackSession(sessionId, roots);
          },
          cancelling: (sessionId, turn) =>
            this.permissions.cancelSession(sessionId, turn === undefined ? {} : { until: turn }),
          closed: (sessionId) => {
            opened.delete(sessionId);
            this.forgetSession(sessionId);
          },
        },
      });
      this.clients.set(agent, client);
      const signal = (agent as Partial<Pick<ClientSideConnection, "signal">>).signal;
      signal?.addEventListener(
        "abort",
        () => {
          for (const sessionId of opened) this.terminals?.releaseSession(sessionId);
          opened.clear();
        },
        { once: true },
      );
    }
    if (agentInfo !== undefined) client.agentInfo = agentInfo;
    return client;
  }

  /** `session/new` (time-limited), then tracks the new session. */
  newSession(
    agent: ClientSideConnection,
    params: schema.NewSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.NewSessionResponse> {
    return this.sessionClient(agent).newSession(params, options);
  }

  /** Tracks the session, then `session/load` (its history replays into the store). */
  loadSession(
    agent: ClientSideConnection,
    params: schema.LoadSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.LoadSessionResponse> {
    return this.sessionClient(agent).loadSession(params, options);
  }

  /** Tracks the session, then `session/resume`. */
  resumeSession(
    agent: ClientSideConnection,
    params: schema.ResumeSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ResumeSessionResponse> {
    return this.sessionClient(agent).resumeSession(params, options);
  }

  /** One prompt turn, recorded in the session's thread. */
  prompt(
    agent: ClientSideConnection,
    params: schema.PromptRequest,
    options?: SendRequestOptions,
  ): Promise<schema.PromptResponse> {
    return this.sessionClient(agent).prompt(params, options);
  }

  /**
   * Cancels the session's running turn: `session/cancel`, and every pending permission
   * request of the session is answered `cancelled`, as the protocol requires.
   */
  cancel(agent: ClientSideConnection, sessionId: string): Promise<void> {
    return this.sessionClient(agent).cancel(sessionId);
  }

  /**
   * Kills every terminal (with its process group) and refuses new ones. When a connection
   * closes, the session helpers kill the terminals of its sessions only; call this when you
   * are done with the toolkit.
   */
  async dispose(): Promise<void> {
    await this.terminals?.dispose();
  }
}
