export * from './bootstrap';
export * from './cluster';
export * from './serve';
