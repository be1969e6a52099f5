import type { Context } from 'hono';
import type { GatewayEnv } from '../auth/authenticate';
import type { Viewer } from './session/sessions.usecases';

/** A console request: the gateway's variables, the signed-in viewer, and the form it posted (read once). */
export type ConsoleEnv = {
  Variables: GatewayEnv['Variables'] & { viewer: Viewer; form: Record<string, string> };
};
export type ConsoleContext = Context<ConsoleEnv>;

/** The account a page acts for; operators have none, and the pages that need one send them to the accounts list. */
export const accountOf = (c: ConsoleContext) => {
  const viewer = c.get('viewer');
  return viewer.kind === 'account' ? viewer.account : undefined;
};
