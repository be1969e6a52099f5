export * from './dispute-states';
export * from './merchant-states';
export * from './payment-states';
export * from './payout-states';
