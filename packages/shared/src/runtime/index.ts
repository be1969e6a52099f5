export * from './bootstrap';
export * from './cluster';
export * from './metrics-server';
export * from './ports';
export * from './serve';
export * from './unhandled';
