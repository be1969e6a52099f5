export * from './balance-transaction-catalogue';
export * from './balance-transactions';
export * from './ledger';
export * from './lines';
export * from './verify';
