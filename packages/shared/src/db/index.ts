export * from './client';
export * from './migrate';
export * from './raw';
export * as schema from './schema';
export * from './unnest';
