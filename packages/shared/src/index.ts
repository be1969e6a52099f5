// The shared kernel. Import submodules directly (`@pps/shared/http`) or through this barrel.
export * from './clock';
export * from './config';
export * from './crypto';
export * from './db';
export * from './events';
export * from './http';
export * from './ids';
export * from './logger';
export * from './money';
export * from './states';
