import { readdir, readFile } from 'node:fs/promises';

/** CPU seconds (user + system) used so far by the given processes, and by every PostgreSQL process. */
export type CpuSample = { server: number; postgres: number };

const TICKS_PER_SECOND = 100;

async function cpuOf(pid: string): Promise<{ command: string; seconds: number } | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  // After the command: state is field 3, utime 14 and stime 15 (proc(5)), so indexes 11 and 12 here.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { command, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
}

/**
 * What the servers and PostgreSQL have used so far. On a shared machine the CPU a request costs is steadier than
 * the requests per second it allows: read the difference of two samples divided by the requests between them.
 * PostgreSQL is one cluster's processes when its postmaster's id is given (the postmaster and its children: the
 * bench's own cluster), else every process named `postgres`.
 */
export async function sampleCpu(serverPids: number[], postmaster?: number): Promise<CpuSample> {
  const servers = new Set(serverPids.map(String));
  const cluster = postmaster ? new Set([String(postmaster), ...(await childrenOf(postmaster))]) : undefined;
  const sample: CpuSample = { server: 0, postgres: 0 };
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cpu = await cpuOf(pid);
    if (!cpu) continue;
    if (servers.has(pid)) sample.server += cpu.seconds;
    else if (cluster ? cluster.has(pid) : cpu.command === 'postgres') sample.postgres += cpu.seconds;
  }
  return sample;
}

/** The child processes of `pid` (a cluster's workers). */
export async function childrenOf(pid: number): Promise<string[]> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return children.trim().split(/\s+/).filter(Boolean);
}

/** CPU milliseconds per request between two samples. */
export const cpuPerRequest = (before: CpuSample, after: CpuSample, requests: number) => ({
  serverMs: Number((((after.server - before.server) * 1000) / requests).toFixed(3)),
  postgresMs: Number((((after.postgres - before.postgres) * 1000) / requests).toFixed(3)),
});
