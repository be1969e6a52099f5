export * from './bootstrap';
export * from './serve';
