export * from './ledger';
export * from './lines';
