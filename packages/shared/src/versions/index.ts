export * from './changes';
export * from './versions';
