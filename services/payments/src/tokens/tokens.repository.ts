import type { Config } from '@pps/shared/config';
import { FieldCipher } from '@pps/shared/crypto';
import {
  type DbOrTx,
  type Keyset,
  keysetPage,
  keysetRead,
  mapSent,
  placeIn,
  type Sent,
  schema,
  send,
  type Travel,
  tableCodec,
} from '@pps/shared/db';
import { and, count, eq } from 'drizzle-orm';

const { tokens } = schema;

export type Token = schema.Token;
export type BillingAddress = schema.BillingAddress;
export type NewToken = schema.NewToken;

/** What a charge needs from the vault: the clear card number, never shown to a client or written to a log. */
export type ChargeableCard = {
  tokenId: string;
  customerId: string | null;
  card: { number: string; expiry: string; holder: string; brand: string; last4: string };
  billingAddress: BillingAddress | null;
};

/**
 * The cipher of the data kept encrypted (card numbers, bank account and routing numbers): AES-256-GCM with
 * DATA_ENCRYPTION_KEYS (first key active, older keys decrypt). One name everywhere: `createDataCipher`.
 */
export const createDataCipher = (config: Pick<Config, 'DATA_ENCRYPTION_KEYS'>) =>
  new FieldCipher(config.DATA_ENCRYPTION_KEYS);

export async function insertToken(db: DbOrTx, values: NewToken): Promise<Token> {
  const [row] = await db.insert(tokens).values(values).returning();
  if (!row) throw new Error('token insert returned no row');
  return row;
}

const tokenCodec = tableCodec(tokens);

// A token is read by id one way: a charge reads its card raw on the hot path, so `GET /tokens/{id}` reads the
// record through the same codec.
const tokenRow = tokenCodec.pick();
const FIND_TOKEN = `select ${tokenRow.columns} from tokens where id = $1`;

export function findToken(db: DbOrTx, id: string): Sent<Token | undefined> {
  return mapSent(send(db, FIND_TOKEN, [id]), ([row]) => row && tokenRow.read(row));
}

/** A token's place in the account's list, for a cursor; undefined when it is no token of the account's. */
export const tokenPlace = (db: DbOrTx, accountId: string, id: string) =>
  placeIn(db, tokens, id, eq(tokens.accountId, accountId));

export async function listTokens(
  db: DbOrTx,
  filter: { accountId: string; customerId?: string; limit: number; offset: number; keyset?: Keyset },
): Promise<{ rows: Token[]; total: number; travel?: Travel }> {
  const where = and(
    eq(tokens.accountId, filter.accountId),
    filter.customerId === undefined ? undefined : eq(tokens.customerId, filter.customerId),
  );
  const read = keysetRead(tokens, filter.keyset, filter.limit);
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(tokens)
      .where(and(where, read.where))
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(filter.offset),
    db.select({ total: count() }).from(tokens).where(where),
  ]);
  return { ...keysetPage(rows, filter.limit, filter.keyset), total: counted?.total ?? 0 };
}

const cardRow = tokenCodec.pick([
  'id',
  'accountId',
  'customerId',
  'panEnc',
  'expiry',
  'holder',
  'brand',
  'last4',
  'billingAddress',
]);
const LOAD_CARDS = `select ${cardRow.columns} from tokens where id = any($1::text[])`;

/**
 * The cards of vault tokens, each for the account that asks, decrypted for the processor, in the order asked; one
 * statement for a batch of charges (group reads). Undefined for a token that does not exist or belongs to another
 * account (the caller answers both the same way, so ids can't be probed). Sent at once.
 */
export function loadCardsForCharge(
  db: DbOrTx,
  cipher: FieldCipher,
  wanted: { accountId: string; tokenId: string }[],
): Sent<(ChargeableCard | undefined)[]> {
  const ids = [...new Set(wanted.map((token) => token.tokenId))];
  return mapSent(send(db, LOAD_CARDS, [ids]), (raws) => {
    const found = new Map(raws.map(cardRow.read).map((row) => [row.id, row]));
    return wanted.map(({ accountId, tokenId }): ChargeableCard | undefined => {
      const row = found.get(tokenId);
      if (!row || row.accountId !== accountId) return undefined;
      return {
        tokenId: row.id,
        customerId: row.customerId,
        card: {
          number: cipher.decrypt(row.panEnc),
          expiry: row.expiry,
          holder: row.holder,
          brand: row.brand,
          last4: row.last4,
        },
        billingAddress: row.billingAddress ?? null,
      };
    });
  });
}
