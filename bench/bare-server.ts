import { randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import postgres from 'postgres';

/**
 * The benchmark's yardstick: a bare Hono + postgres.js server whose one route does the least durable work a
 * payment needs (one transaction: one payment row, two ledger rows; 4 round trips: begin, two inserts, commit),
 * on a database of its own, pool 20. No auth, no validation, no idempotency, no events: what the platform costs
 * on top of this is what `npm run bench` reports as a ratio.
 */
const sql = postgres(process.env.DATABASE_URL as string, { max: 20, onnotice: () => {} });
await sql`create table if not exists payments (
  id text primary key, merchant_id text not null, amount bigint not null, status text not null,
  created_at timestamptz not null default now())`;
await sql`create table if not exists ledger_entries (
  id bigserial primary key, payment_id text not null references payments (id), ledger_account text not null,
  amount bigint not null, created_at timestamptz not null default now())`;

const app = new Hono();
app.post('/payments', async (c) => {
  const { attributes } = (await c.req.json()).data;
  const amount = Number(attributes.transaction.amount);
  const id = `pay_${randomUUID()}`;
  await sql.begin(async (tx) => {
    await tx`insert into payments (id, merchant_id, amount, status) values (${id}, ${attributes.merchantId}, ${amount}, 'pending')`;
    await tx`insert into ledger_entries (payment_id, ledger_account, amount)
      values (${id}, 'merchant', ${amount}), (${id}, 'processor', ${-amount})`;
  });
  return c.json({ data: { type: 'payments', id, attributes: { status: 'pending', amount: String(amount) } } }, 201);
});
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' }, () => console.log('listening'));
process.on('SIGTERM', () => sql.end({ timeout: 1 }).then(() => process.exit(0)));
