import type { FieldCipher } from '@pps/shared/crypto';
import type { DbOrTx } from '@pps/shared/db';
import { schema } from '@pps/shared/db';
import { newId } from '@pps/shared/ids';
import { and, eq, isNull } from 'drizzle-orm';

const { merchantBankAccounts } = schema;

export type BankAccountVersion = schema.MerchantBankAccount;

/** A bank account as the client sent it (account and routing numbers in clear, encrypted here). */
export type BankAccountInput = {
  bankName: string;
  accountOwnership: 'personal' | 'business';
  accountType: 'checking' | 'savings';
  accountName: string;
  accountNumber: string;
  routingNumber: string;
};

/** The bank account in force now (the version new deposits go to), or undefined. */
export async function currentBankAccount(db: DbOrTx, merchantId: string): Promise<BankAccountVersion | undefined> {
  const [row] = await db
    .select()
    .from(merchantBankAccounts)
    .where(and(eq(merchantBankAccounts.merchantId, merchantId), isNull(merchantBankAccounts.supersededAt)));
  return row;
}

/** A given version of a merchant's bank account (1 is the one given at creation), superseded or not. */
export async function bankAccountAt(
  db: DbOrTx,
  merchantId: string,
  version: number,
): Promise<BankAccountVersion | undefined> {
  const [row] = await db
    .select()
    .from(merchantBankAccounts)
    .where(and(eq(merchantBankAccounts.merchantId, merchantId), eq(merchantBankAccounts.version, version)));
  return row;
}

/** The account and routing numbers in clear, for a payout or a NACHA file only: never for a response or a log. */
export function revealBankAccount(cipher: FieldCipher, row: BankAccountVersion) {
  return { accountNumber: cipher.decrypt(row.accountNumberEnc), routingNumber: cipher.decrypt(row.routingNumberEnc) };
}

/**
 * Adds a version and supersedes the current one (kept, so deposits already pending keep their account).
 * The caller holds the merchant's row lock, which serialises versions of one merchant.
 */
export async function addBankAccountVersion(
  tx: DbOrTx,
  cipher: FieldCipher,
  input: { merchantId: string; bank: BankAccountInput; now: Date },
): Promise<BankAccountVersion> {
  const [superseded] = await tx
    .update(merchantBankAccounts)
    .set({ supersededAt: input.now })
    .where(and(eq(merchantBankAccounts.merchantId, input.merchantId), isNull(merchantBankAccounts.supersededAt)))
    .returning({ version: merchantBankAccounts.version });
  const { bank } = input;
  const [row] = await tx
    .insert(merchantBankAccounts)
    .values({
      id: newId('bankAccount'),
      merchantId: input.merchantId,
      version: (superseded?.version ?? 0) + 1,
      bankName: bank.bankName,
      accountOwnership: bank.accountOwnership,
      accountType: bank.accountType,
      accountName: bank.accountName,
      accountNumberEnc: cipher.encrypt(bank.accountNumber),
      routingNumberEnc: cipher.encrypt(bank.routingNumber),
      last4: bank.accountNumber.slice(-4),
      routingLast4: bank.routingNumber.slice(-4),
      createdAt: input.now,
    })
    .returning();
  return row!;
}
