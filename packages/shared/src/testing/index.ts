export * from './databases';
export * from './queue-keys';
export * from './redis-cluster';
export * from './runs';
