import { timestamp } from 'drizzle-orm/pg-core';

/** Timestamps are timestamptz with milliseconds, read as Date. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

export const timestamps = {
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
};

/** A billing address as kept with a vault token or a card payment (every part optional). */
export type BillingAddress = {
  line1?: string;
  line2?: string;
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
};
