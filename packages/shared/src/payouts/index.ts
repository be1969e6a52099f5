export * from './create-payouts';
export * from './payout-resource';
