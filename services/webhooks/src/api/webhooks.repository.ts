import type { Config } from '@pps/shared/config';
import { FieldCipher } from '@pps/shared/crypto';
import { type DbOrTx, type Keyset, keysetPage, keysetRead, placeIn, schema, type Travel } from '@pps/shared/db';
import type { ApiVersion } from '@pps/shared/versions';
import { and, count, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';

const { webhookEndpoints, webhookDeliveries } = schema;

export type WebhookEndpoint = schema.WebhookEndpoint;
export type NewWebhookEndpoint = typeof webhookEndpoints.$inferInsert;
export type WebhookEndpointChanges = Partial<
  Pick<
    NewWebhookEndpoint,
    | 'url'
    | 'events'
    | 'description'
    | 'enabled'
    | 'apiVersion'
    | 'disabledReason'
    | 'secretEnc'
    | 'previousSecretEnc'
    | 'previousSecretExpiresAt'
    | 'deletedAt'
    | 'updatedAt'
  >
>;

/**
 * The cipher of signing secrets: AES-256-GCM with DATA_ENCRYPTION_KEYS (first key active, older keys decrypt),
 * the same keys the delivery workers decrypt with.
 */
export const createSecretCipher = (config: Pick<Config, 'DATA_ENCRYPTION_KEYS'>) =>
  new FieldCipher(config.DATA_ENCRYPTION_KEYS);

/** An account's API version, as a value of an insert: read by the statement itself. */
export const accountPin = (accountId: string) =>
  sql<ApiVersion>`(select ${schema.accounts.apiVersion} from ${schema.accounts} where ${schema.accounts.id} = ${accountId})`;

export async function insertEndpoint(
  db: DbOrTx,
  values: PgInsertValue<typeof webhookEndpoints>,
): Promise<WebhookEndpoint> {
  const [row] = await db.insert(webhookEndpoints).values(values).returning();
  if (!row) throw new Error('webhook endpoint insert returned no row');
  return row;
}

/** The endpoint, deleted or not; `lock` takes the row lock until the transaction ends. */
export async function findEndpoint(
  db: DbOrTx,
  id: string,
  options: { lock?: boolean } = {},
): Promise<WebhookEndpoint | undefined> {
  const query = db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  const [row] = options.lock ? await query.for('update') : await query;
  return row;
}

/** Changes an endpoint not deleted; undefined when it is gone (deleted meanwhile). */
export async function updateEndpoint(
  db: DbOrTx,
  id: string,
  changes: WebhookEndpointChanges,
): Promise<WebhookEndpoint | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set(changes)
    .where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.deletedAt)))
    .returning();
  return row;
}

/**
 * An endpoint's place in the account's list, for a cursor; undefined when it is no endpoint of the account's. A
 * deleted one keeps its place: a client paging while it was deleted goes on from it.
 */
export const endpointPlace = (db: DbOrTx, accountId: string, id: string) =>
  placeIn(db, webhookEndpoints, id, eq(webhookEndpoints.accountId, accountId));

export async function listEndpoints(
  db: DbOrTx,
  filter: { accountId: string; limit: number; offset: number; keyset?: Keyset },
): Promise<{ rows: WebhookEndpoint[]; total: number; travel?: Travel }> {
  const where = and(eq(webhookEndpoints.accountId, filter.accountId), isNull(webhookEndpoints.deletedAt));
  const read = keysetRead(webhookEndpoints, filter.keyset, filter.limit);
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(webhookEndpoints)
      .where(and(where, read.where))
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(filter.offset),
    db.select({ total: count() }).from(webhookEndpoints).where(where),
  ]);
  return { ...keysetPage(rows, filter.limit, filter.keyset), total: counted?.total ?? 0 };
}

/** Endpoints subscribed to a type: their `events` hold it, or `"*"`. */
const subscribedTo = (eventType: string): SQL =>
  sql`(${webhookEndpoints.events} @> ${JSON.stringify([eventType])}::jsonb or ${webhookEndpoints.events} @> '["*"]'::jsonb)`;

/**
 * The endpoints a redelivery of an event to all goes to: the account's enabled, not deleted endpoints that
 * already have a delivery of the event or are subscribed to its type. A `webhook.test` event is addressed to
 * one endpoint, so it goes only where it was delivered. Oldest endpoint first.
 */
export async function redeliveryTargets(
  db: DbOrTx,
  event: { id: string; accountId: string; type: string },
): Promise<string[]> {
  const hasDelivery = sql`exists (select 1 from ${webhookDeliveries} where ${webhookDeliveries.endpointId} = ${webhookEndpoints.id} and ${webhookDeliveries.eventId} = ${event.id})`;
  const takes = event.type === 'webhook.test' ? hasDelivery : sql`(${hasDelivery} or ${subscribedTo(event.type)})`;
  const rows = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.accountId, event.accountId),
        eq(webhookEndpoints.enabled, true),
        isNull(webhookEndpoints.deletedAt),
        takes,
      ),
    )
    .orderBy(webhookEndpoints.createdAt, webhookEndpoints.id);
  return rows.map((row) => row.id);
}
