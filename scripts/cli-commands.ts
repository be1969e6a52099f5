/**
 * The ops CLI's commands (`npm run cli -- <command>`, scripts/cli.ts): its usage text and docs/api.md's table of
 * commands (`npm run docs:tables`) are made from this, and scripts/cli.ts has a handler for each name, so a command
 * cannot be added without being described here.
 */
export const cliCommands = {
  'accounts:create': {
    args: '--name NAME',
    does: 'onboards an account, as `POST /admin/accounts` does; prints its id, API key and app id (the key only here)',
  },
  'accounts:status': {
    args: '--id ACCOUNT_ID --status active|disabled',
    does: 'enables or disables an account, as `PUT /admin/accounts/{id}` does',
  },
  'merchants:status': {
    args: '--id MERCHANT_ID --status active|pending|suspended|closed [--reason TEXT]',
    does: "moves a merchant's status, as `PUT /admin/merchants/{id}/status` does",
  },
  'merchants:features': {
    args: '--id MERCHANT_ID --second-split true|false',
    does: 'switches second splits for a merchant, as `PUT /admin/merchants/{id}/features` does',
  },
  'payouts:list': {
    args: '--id MERCHANT_ID [--limit 1-100] [--offset N]',
    does: "a merchant's payouts, newest first: id, status, amount, arrival date, trace number, and the total",
  },
  'ledger:verify': {
    args: '',
    does: 'read-only: kept balances and list totals against their rows; exit 1 on a difference (it does not migrate)',
  },
} as const satisfies Record<string, { args: string; does: string }>;

export type CliCommand = keyof typeof cliCommands;

export const isCliCommand = (name: string | undefined): name is CliCommand =>
  name !== undefined && Object.hasOwn(cliCommands, name);

/** What `npm run cli` prints without a known command: each command, and what it does below it. */
export const cliUsage = () =>
  [
    'usage:',
    ...Object.entries(cliCommands).flatMap(([name, { args, does }]) => [
      `  npm run cli -- ${name}${args ? ` ${args}` : ''}`,
      `      ${does.replaceAll('`', '')}`,
    ]),
  ].join('\n');
