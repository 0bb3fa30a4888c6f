import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../../test/authConfig';
import { aclWith } from '../../test/userContexts';
import { databaseFixtures, databasePage } from '../databases/fixtures';
import { enrollNamed, issuedToken, renderDiscover } from './discover.testkit';

const databasesUrl = '/v1/webapi/sites/localhost/databases';
const diagnosticsUrl = '/v1/webapi/sites/localhost/diagnostics/connections';
const orders = databaseFixtures.find((db) => db.name === 'orders')!;

const diagnostic = {
  id: 'd-1',
  success: false,
  message: 'the database refused "alice"',
  traces: [
    {
      trace_type: 'rbac_database',
      status: 'success',
      details: 'Your roles reach orders.',
      error: '',
    },
    {
      trace_type: 'connectivity',
      status: 'failed',
      details: 'The database answers.',
      error: 'the database refused "alice"',
    },
  ],
};

/** A database that joins at the first look, on a proxy that answers the connection test. */
function joinedDatabase(grants: Parameters<typeof aclWith>[0]) {
  let looks = 0;
  return renderDiscover(
    (method, url) => {
      if (method === 'POST' && url.pathname === '/v1/webapi/token') {
        return jsonResponse({ ...issuedToken(), roles: ['Db'] });
      }
      if (method === 'POST' && url.pathname === diagnosticsUrl) return jsonResponse(diagnostic);
      if (method === 'GET' && url.pathname === databasesUrl) {
        // The name check finds nothing; the first look finds it.
        looks += 1;
        return jsonResponse(databasePage(looks >= 2 ? [orders] : []));
      }
    },
    aclWith({ tokens: ['create'], dbServers: ['list', 'read'], ...grants }),
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('DiscoverPage, a database', () => {
  it('tests the connection of the joined database as the user, and shows each step', async () => {
    const { calls, user } = joinedDatabase({ connectionDiagnostic: ['create'] });
    await enrollNamed(user, 'Database', 'orders', 'postgres://localhost:5432');
    expect(await screen.findByText('orders joined')).toBeTruthy();
    await user.type(screen.getByRole('textbox', { name: 'Database user' }), 'alice');
    await user.type(screen.getByRole('textbox', { name: 'Database name' }), 'shop');
    await user.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(
      await screen.findByText('The connection failed: the database refused "alice"'),
    ).toBeTruthy();
    const steps = within(screen.getByRole('list', { name: 'Connection test steps' }));
    expect(steps.getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'Your roles reach orders.',
      'The database answers.the database refused "alice"',
    ]);
    expect(calls('POST', diagnosticsUrl).map((call) => JSON.parse(String(call.body)))).toEqual([
      {
        resource_kind: 'db',
        resource_name: 'orders',
        database_user: 'alice',
        database_name: 'shop',
      },
    ]);
  });

  it('offers no connection test to roles that may not run one', async () => {
    const { user } = joinedDatabase({});
    await enrollNamed(user, 'Database', 'orders', 'postgres://localhost:5432');
    expect(await screen.findByText('orders joined')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Test connection' })).toBeNull();
  });
});
