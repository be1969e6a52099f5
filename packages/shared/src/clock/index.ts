export * from './account-clock';
export * from './business-days';
export * from './calendar-date';
export * from './clock';
export * from './pacific';
export * from './settlement';
