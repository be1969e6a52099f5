export * from './catalogue';
export * from './outbox';
