export * from './crypto';
