export * from './secrets';
export * from './url-guard';
