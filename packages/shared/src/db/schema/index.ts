// One drizzle schema for the one database. One file per table (or tightly bound pair).
export * from './accounts';
export * from './apps';
export * from './events';
export * from './merchants';
