/**
 * The login chooser wired to the controller: logs in with the method chosen (a terminal
 * login gets the screen; an `env_var` login gets the values typed), and says how it went.
 *
 * @module
 */
import type { ReactNode } from "react";
import type { AuthMethod } from "acp-kit";
import { inheritStdioRunner, isTerminalAuth, type AgentController } from "../controller.js";
import { failureText } from "../exit-codes.js";
import { AuthView } from "./auth-view.js";
import type { UiModel } from "./ui-model.js";

/** Props of {@link LoginBox}. */
export interface LoginBoxProps {
  readonly controller: AgentController;
  readonly ui: UiModel;
  /** Hands the terminal to an interactive command (terminal login). */
  readonly suspend: <T>(run: () => Promise<T>) => Promise<T>;
  /** True for `/login` (the agent's methods from `initialize`), false when a request needed it. */
  readonly requested: boolean;
  /** Esc, or (for `/login`) a login that succeeded. */
  readonly onDone: () => void;
}

/** The methods `/login` offers: the ones `initialize` advertised. */
export function loginMethods(controller: AgentController): readonly AuthMethod[] {
  return controller.info?.authMethods ?? [];
}

/** See the module comment. */
export function LoginBox({ controller, ui, suspend, requested, onDone }: LoginBoxProps): ReactNode {
  const methods = requested ? loginMethods(controller) : controller.authMethods;
  return (
    <AuthView
      methods={methods}
      requested={requested}
      missingVars={(method) => controller.missingLoginVars(method)}
      onLeave={onDone}
      onChoose={(method, values) => {
        // A terminal method hands the screen to the login command, which unmounts the view:
        // say what happened once it is back.
        const inTerminal = isTerminalAuth(method);
        if (!inTerminal) ui.notify("info", `Logging in with ${method.name}…`);
        return controller
          .authenticate(
            method,
            (command, args, env) => suspend(() => inheritStdioRunner(command, args, env)),
            values,
          )
          .then(() => {
            ui.notify(
              "info",
              inTerminal
                ? `Logged in (${method.name}); agent restarted.`
                : `Logged in (${method.name}).`,
            );
            if (requested) onDone();
          })
          .catch((error: unknown) => ui.notify("error", failureText(error)));
      }}
    />
  );
}
