import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, rolePorts } from '@pps/shared/config';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * docker-compose.yml as Compose reads it, without a Docker engine: `config` interpolates and validates the file. The
 * five secrets come from .env.example filled in the way it says (each `Generate:` command run as written), so its
 * instructions are checked too. Compose is Docker's plugin when there is one, else Debian's docker-compose, which
 * .ci/run installs (README, Tests); neither being there fails, never skips.
 */

const SECRETS = ['ADMIN_TOKEN', 'INTERNAL_SECRET', 'TOKEN_SIGNING_KEYS', 'DATA_ENCRYPTION_KEYS', 'BLIND_INDEX_KEY'];
const IMAGE = 'pps:local';

const compose: string[] =
  spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0
    ? ['docker', 'compose']
    : ['docker-compose'];

const scratch = mkdtempSync(join(tmpdir(), 'pps-compose-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * `compose --env-file <file> -f docker-compose.yml [-f more…] config`, with none of the secrets in the environment
 * (it would win over the file).
 */
function composeConfig(envFile: string, more: string[] = []) {
  const env = { ...process.env };
  for (const name of SECRETS) delete env[name];
  const [command, ...args] = compose as [string, ...string[]];
  const files = ['docker-compose.yml', ...more].flatMap((file) => ['-f', file]);
  const result = spawnSync(command, [...args, '--env-file', envFile, ...files, 'config'], {
    env,
    encoding: 'utf8',
  });
  if (result.error) throw new Error(`${compose.join(' ')} did not run (${result.error.message}); see README, Tests`);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** .env.example with each secret set by running the command of its `# Generate:` line. */
function filledEnvExample(): { text: string; values: Record<string, string> } {
  const values: Record<string, string> = {};
  let generate: string | undefined;
  const lines = readFileSync('.env.example', 'utf8')
    .split('\n')
    .map((line) => {
      const command = /^# Generate: (.+)$/.exec(line)?.[1];
      if (command) generate = command;
      const name = /^([A-Z_]+)=$/.exec(line)?.[1];
      if (!name) return line;
      if (!generate) throw new Error(`.env.example: no Generate line for ${name}`);
      values[name] = execFileSync('bash', ['-c', generate], { encoding: 'utf8' }).trim();
      generate = undefined;
      return `${name}=${values[name]}`;
    });
  return { text: lines.join('\n'), values };
}

type Service = {
  image?: string;
  build?: unknown;
  pull_policy?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[] };
};

describe('docker-compose.yml', () => {
  it('lists every secret in .env.example, each with a command that makes a value production accepts', () => {
    const { values } = filledEnvExample();
    expect(Object.keys(values).sort()).toEqual([...SECRETS].sort());
    const config = loadConfig({ NODE_ENV: 'production', ...values });
    expect(config.warnings).toEqual([]);
    expect(config.ADMIN_TOKEN).toBe(values.ADMIN_TOKEN);
  });

  it('is refused while .env.example is copied as it is (the secrets empty), naming the secret', () => {
    const result = composeConfig('.env.example');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(
      /set (ADMIN_TOKEN|INTERNAL_SECRET|TOKEN_SIGNING_KEYS|DATA_ENCRYPTION_KEYS|BLIND_INDEX_KEY) in \.env/,
    );
  });

  it('passes `config` with the secrets set: one image built once, a healthcheck everywhere, health-gated starts', () => {
    const { text, values } = filledEnvExample();
    const envFile = join(scratch, '.env');
    writeFileSync(envFile, text);
    const result = composeConfig(envFile);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.status).toBe(0);
    const services = parse(result.stdout).services as Record<string, Service>;

    // pps-image alone builds; every service of ours runs its image, never pulled, and starts after it was built.
    const ours = Object.entries(services).filter(([name, service]) => service.image === IMAGE && name !== 'pps-image');
    expect(ours.map(([name]) => name).sort()).toEqual(['gateway', 'merchants', 'payments', 'settlement', 'webhooks']);
    expect(services['pps-image']?.build).toBeDefined();
    for (const [name, service] of ours) {
      expect(service.build, name).toBeUndefined();
      expect(service.pull_policy, name).toBe('never');
      expect(service.depends_on?.['pps-image'], name).toMatchObject({ condition: 'service_completed_successfully' });
      expect(service.depends_on?.postgres, name).toMatchObject({ condition: 'service_healthy' });
      expect(service.depends_on?.redis, name).toMatchObject({ condition: 'service_healthy' });
      for (const secret of SECRETS) expect(service.environment?.[secret], `${name} ${secret}`).toBe(values[secret]);
    }

    // Every long-running service has a healthcheck; ours ask the /readyz of their own port (the image has no curl).
    for (const [name, service] of Object.entries(services)) {
      if (name === 'pps-image') continue;
      expect(service.healthcheck?.test?.length, name).toBeGreaterThan(1);
    }
    const probe = (name: string) => services[name]?.healthcheck?.test?.join(' ') ?? '';
    expect(probe('gateway')).toContain(`127.0.0.1:${services.gateway?.environment?.PORT}/readyz`);
    expect(probe('payments')).toContain(`127.0.0.1:${services.payments?.environment?.PAYMENTS_PORT}/readyz`);
    expect(probe('merchants')).toContain(`127.0.0.1:${services.merchants?.environment?.MERCHANTS_PORT}/readyz`);
    // The workers' metrics servers on their roles' default ports (SETTLEMENT_METRICS_PORT, WEBHOOKS_METRICS_PORT).
    const defaults = rolePorts(loadConfig({}));
    expect(probe('settlement')).toContain(`127.0.0.1:${defaults.settlement}/readyz`);
    expect(probe('webhooks')).toContain(`127.0.0.1:${defaults.webhooks}/readyz`);
    expect(services.gateway?.environment?.PAYMENTS_URL).toBe(
      `http://payments:${services.payments?.environment?.PAYMENTS_PORT}`,
    );
    expect(services.gateway?.environment?.MERCHANTS_URL).toBe(
      `http://merchants:${services.merchants?.environment?.MERCHANTS_PORT}`,
    );
    expect(services.webhooks?.command).toEqual(['node', 'dist/webhooks.js']);
    for (const name of ['gateway', 'payments', 'merchants', 'settlement', 'webhooks']) {
      expect(probe(name)).toMatch(/^CMD node -e /);
    }

    // The gateway starts once the services it forwards to answer.
    expect(services.gateway?.depends_on?.payments).toMatchObject({ condition: 'service_healthy' });
    expect(services.gateway?.depends_on?.merchants).toMatchObject({ condition: 'service_healthy' });
  });

  it('runs on a Redis Cluster with docker-compose.cluster.yml: six nodes joined once, every service a client', () => {
    const { text, values } = filledEnvExample();
    const envFile = join(scratch, '.env.cluster');
    writeFileSync(envFile, text);
    const result = composeConfig(envFile, ['docker-compose.cluster.yml']);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.status).toBe(0);
    const services = parse(result.stdout).services as Record<string, Service>;
    const nodes = ['redis-1', 'redis-2', 'redis-3', 'redis-4', 'redis-5', 'redis-6'];
    for (const node of nodes) {
      expect(services[node]?.command?.join(' '), node).toContain('--cluster-enabled yes');
      expect(services[node]?.healthcheck?.test?.length, node).toBeGreaterThan(1);
    }
    const init = services['redis-cluster-init'];
    expect(init?.command?.join(' ')).toMatch(/--cluster create[\s\S]*--cluster-replicas 1 --cluster-yes/);
    for (const node of nodes) expect(init?.depends_on?.[node], node).toMatchObject({ condition: 'service_healthy' });
    for (const name of ['gateway', 'payments', 'merchants', 'settlement', 'webhooks']) {
      const service = services[name];
      expect(service?.environment?.REDIS_CLUSTER_NODES, name).toBe(nodes.map((node) => `${node}:6379`).join(','));
      expect(service?.depends_on?.['redis-cluster-init'], name).toMatchObject({
        condition: 'service_completed_successfully',
      });
      // The rest of the service as docker-compose.yml has it.
      expect(service?.environment?.DATABASE_URL, name).toBe('postgres://postgres:postgres@postgres:5432/pps');
      for (const secret of SECRETS) expect(service?.environment?.[secret], `${name} ${secret}`).toBe(values[secret]);
    }
  });
});
