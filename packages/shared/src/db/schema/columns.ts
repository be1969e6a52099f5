import { timestamp } from 'drizzle-orm/pg-core';

/** Timestamps are timestamptz with milliseconds, read as Date. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

export const timestamps = {
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
};
