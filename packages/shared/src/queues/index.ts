export * from './catalogue';
export * from './enqueue';
export * from './keep-working';
export * from './redis';
export * from './run-job';
export * from './settlement-trigger';
