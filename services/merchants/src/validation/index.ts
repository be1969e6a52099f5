export * from './birth-date';
export * from './contact';
export * from './problem';
export * from './routing-number';
export * from './rules';
export * from './tax-ids';
export * from './us-address';
