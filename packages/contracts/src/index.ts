export * from './acl.js';
export * from './api-paths.js';
export * from './audit/catalogue.js';
export * from './audit/search.js';
export * from './client-config.js';
export * from './clusters.js';
export * from './errors.js';
export * from './ping.js';
