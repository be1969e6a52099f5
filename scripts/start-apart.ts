import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ConfigError, loadConfig, rolePorts, rolePortVariables } from '@pps/shared/config';
import { refuseTakenPorts } from '@pps/shared/runtime';

/**
 * `npm run start:apart`: the five process roles of the Compose layout on one machine, each the entry point of its
 * `npm run start:<role>` (from the TypeScript sources), each on its own port (README, Run the services apart). Their
 * output is interleaved line by line behind the role's name; Ctrl-C (or SIGTERM) stops them all and waits for each
 * to drain; when one exits on its own, the others are stopped too, and the exit code is 1. A role's port already in
 * use stops it before anything starts, with the one line that names the port and its variable.
 */
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
// The children are not given METRICS_PORT (below): each worker serves on its role's port.
const ports = rolePorts({ ...config, METRICS_PORT: undefined });
// What a browser or curl on this machine uses to reach a server listening on HOST.
const reachable = ['0.0.0.0', '::'].includes(config.HOST) ? '127.0.0.1' : config.HOST;
const url = (port: number) => `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;

type Role = keyof typeof ports;
const roles: { role: Role; entry: string; env?: Record<string, string> }[] = [
  { role: 'payments', entry: 'services/payments/src/main.ts' },
  { role: 'merchants', entry: 'services/merchants/src/main.ts' },
  {
    role: 'gateway',
    entry: 'services/gateway/src/main.ts',
    // The gateway alone needs the services' addresses: the ones started here, unless set.
    env: {
      PAYMENTS_URL: config.PAYMENTS_URL ?? url(ports.payments),
      MERCHANTS_URL: config.MERCHANTS_URL ?? url(ports.merchants),
    },
  },
  { role: 'settlement', entry: 'services/settlement/src/main.ts' },
  { role: 'webhooks', entry: 'services/webhooks/src/main.ts' },
];

// METRICS_PORT names one process's port: given to both workers it would make them clash again.
const inherited: NodeJS.ProcessEnv = { ...process.env };
if (config.METRICS_PORT !== undefined) {
  delete inherited.METRICS_PORT;
  console.warn('METRICS_PORT is ignored here: set SETTLEMENT_METRICS_PORT and WEBHOOKS_METRICS_PORT instead');
}

const width = Math.max(...roles.map(({ role }) => role.length));
const prefixed = (role: string, stream: NodeJS.ReadableStream, out: NodeJS.WritableStream) =>
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) =>
    out.write(`${role.padEnd(width)} | ${line}\n`),
  );

await refuseTakenPorts(
  roles.map(({ role }) => ({ port: ports[role], variable: rolePortVariables[role] })),
  config.HOST,
);

for (const { role } of roles) {
  const served =
    role === 'settlement' || role === 'webhooks'
      ? '/healthz, /readyz, /metrics'
      : '/healthz, /readyz, /metrics, its API';
  console.log(`${role.padEnd(width)} | ${ports[role] === 0 ? 'no HTTP (port 0)' : `${url(ports[role])} (${served})`}`);
}

const children = new Map<Role, ChildProcess>();
let stopping = false;
let exitCode = 0;

function stopAll(signal: NodeJS.Signals) {
  for (const child of children.values()) child.kill(signal);
}

for (const { role, entry, env } of roles) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(role, child);
  prefixed(role, child.stdout, process.stdout);
  prefixed(role, child.stderr, process.stderr);
  child.once('exit', (code, signal) => {
    children.delete(role);
    if (!stopping) {
      console.error(`${role.padEnd(width)} | exited (${signal ?? `code ${code}`}): stopping the others`);
      stopping = true;
      exitCode = 1;
      stopAll('SIGTERM');
    }
    if (children.size === 0) process.exit(exitCode);
  });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second Ctrl-C does not wait for the drain.
    if (stopping) return stopAll('SIGKILL');
    stopping = true;
    stopAll('SIGTERM');
  });
}
