import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { testRedisUrl } from '../testing';
import { keepWorking } from './keep-working';

const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
const prefix = `{keep-working-test-${randomBytes(4).toString('hex')}}`;
const queue = new Queue('jobs', { connection, prefix });

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  await connection.quit();
});

async function until(condition: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

describe('keepWorking', () => {
  it('replaces a worker that takes no job while one waits; never one that works, nor for a job not due', async () => {
    const done: string[] = [];
    const replaced: number[] = [];
    let made = 0;
    // The first worker is `stuck` when asked: it never takes a job (as one blocked on a node that died).
    const keep = (stuck: boolean) =>
      keepWorking(
        () => {
          made += 1;
          const autorun = !(stuck && made === 1);
          return new Worker('jobs', async (job) => void done.push(String(job.id)), { connection, prefix, autorun });
        },
        queue,
        { stuckAfterMs: 300, checkEveryMs: 50, onReplaced: (waitedMs) => replaced.push(waitedMs) },
      );

    // A working worker takes its jobs, and is left alone however long it then idles; a delayed job not due yet is
    // no job waiting.
    const working = keep(false);
    try {
      await queue.add('job', {}, { jobId: 'first' });
      await until(() => done.includes('first'));
      await queue.add('job', {}, { jobId: 'later', delay: 60_000 });
      await sleep(800);
      expect({ made, replaced }).toEqual({ made: 1, replaced: [] });
    } finally {
      await working.close();
    }

    // A worker that takes nothing while a job waits is replaced, and the new one takes the job.
    made = 0;
    const stuck = keep(true);
    try {
      await queue.add('job', {}, { jobId: 'waiting' });
      await until(() => done.includes('waiting'));
      expect(made).toBe(2);
      expect(replaced).toHaveLength(1);
      expect(replaced[0]).toBeGreaterThanOrEqual(300);
    } finally {
      await stuck.close();
    }
  });
});
