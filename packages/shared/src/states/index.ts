export * from './merchant-states';
export * from './payment-states';
export * from './payment-transition';
export * from './payout-states';
export * from './payout-transition';
