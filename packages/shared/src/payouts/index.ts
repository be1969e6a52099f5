export * from './advance-payouts';
export * from './create-payouts';
export * from './due-schedules';
export * from './file-payouts';
export * from './payout-resource';
export * from './payout-run';
