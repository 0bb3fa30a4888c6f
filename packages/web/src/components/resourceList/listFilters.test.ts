import { labelClause } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import {
  isFiltered,
  listFiltersKey,
  listQueryString,
  noListFilters,
  parseListSort,
  type ListFilters,
  type ListPageRequest,
} from './listFilters';

type AppSortField = 'name' | 'description';
const appSortFields: readonly AppSortField[] = ['name', 'description'];
type AppRequest = ListPageRequest<ListFilters<AppSortField>>;

describe('list filters', () => {
  it('reads a sort only for the kind’s own fields', () => {
    expect(parseListSort('description:DESC', appSortFields)).toEqual({
      field: 'description',
      dir: 'desc',
    });
    expect(parseListSort('name', appSortFields)).toEqual({ field: 'name', dir: 'asc' });
    expect(parseListSort('hostname:asc', appSortFields)).toBeUndefined();
    expect(parseListSort(null, appSortFields)).toBeUndefined();
  });

  it('writes the list call’s query string, trimmed, with empty values left out', () => {
    const request: AppRequest = { search: ' graf ', query: '', startKey: '', limit: 3 };
    expect(listQueryString(request, 15)).toBe('limit=3&search=graf');
    const next: AppRequest = {
      search: '',
      query: labelClause('env', 'prod'),
      sort: { field: 'name', dir: 'desc' },
      startKey: 'after:argo',
    };
    expect(new URLSearchParams(listQueryString(next, 15)).toString()).toBe(
      new URLSearchParams({
        limit: '15',
        startKey: 'after:argo',
        query: 'labels["env"] == "prod"',
        sort: 'name:desc',
      }).toString(),
    );
    // Searching as the requestable roles: the same list, asked with searchAsRoles=yes.
    expect(listQueryString(request, 15, { searchAsRoles: true })).toBe(
      'limit=3&search=graf&searchAsRoles=yes',
    );
    expect(listQueryString(request, 15, { searchAsRoles: false })).toBe('limit=3&search=graf');
  });

  it('sends a kind’s extra filters after the common ones: empty left out, never a common name', () => {
    const request: AppRequest = {
      search: 'graf',
      query: '',
      startKey: 'k15',
      extra: { kinds: ' db,app ', team: '', limit: '999', sort: 'x' },
    };
    expect(listQueryString(request, 15)).toBe('limit=15&startKey=k15&search=graf&kinds=db%2Capp');
    expect(listQueryString(request, 15, { searchAsRoles: true })).toBe(
      'limit=15&startKey=k15&search=graf&kinds=db%2Capp&searchAsRoles=yes',
    );
  });

  it('counts an extra filter as a filter and as a change that goes back to page 1', () => {
    // Lists without extra filters keep the key they always had.
    expect(listFiltersKey(noListFilters)).toBe('["","",null]');
    expect(listFiltersKey({ ...noListFilters, extra: { kinds: '' } })).toBe('["","",null]');
    expect(isFiltered({ ...noListFilters, extra: { kinds: '' } })).toBe(false);
    const byKind = { ...noListFilters, extra: { kinds: 'db' } };
    expect(isFiltered(byKind)).toBe(true);
    expect(listFiltersKey(byKind)).not.toBe(listFiltersKey(noListFilters));
    expect(listFiltersKey(byKind)).not.toBe(
      listFiltersKey({ ...noListFilters, extra: { kinds: 'app' } }),
    );
  });
});
