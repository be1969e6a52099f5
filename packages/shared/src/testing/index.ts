export * from './databases';
export * from './queue-keys';
export * from './runs';
