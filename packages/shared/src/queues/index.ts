export * from './catalogue';
export * from './enqueue';
export * from './settlement-trigger';
