export * from './routing-number';
