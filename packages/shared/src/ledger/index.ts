export * from './balance-transactions';
export * from './ledger';
export * from './lines';
export * from './verify';
