import { describe, expect, it } from 'vitest';
import { splitKubeUrl } from './kube-path.js';

describe('splitKubeUrl', () => {
  it.each([
    ['/kube/prod/api/v1/pods?watch=1', { cluster: 'prod', path: '/api/v1/pods?watch=1' }],
    ['/kube/prod', { cluster: 'prod', path: '/' }],
    ['/kube/prod?timeout=32s', { cluster: 'prod', path: '/' }],
    ['/kube/my%20lab/version', { cluster: 'my lab', path: '/version' }],
    ['/kube/%E0/api', { cluster: '%E0', path: '/api' }],
    ['/api/v1/pods', { cluster: '', path: '/' }],
  ])('%s', (url, parts) => {
    expect(splitKubeUrl(url)).toEqual(parts);
  });
});
