export * from './merchant-states';
export * from './payment-states';
