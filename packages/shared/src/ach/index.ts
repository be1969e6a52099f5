export * from './ach-file';
export * from './nacha';
