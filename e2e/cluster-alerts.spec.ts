import { expect, postern, signUpWithPasskey, testWithOwnServer } from './support/identity.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

// Cluster alerts on a server of the spec's own: a banner on every page of a shared server would
// get in other specs' way, should this test stop before it takes its alert down.
const test = testWithOwnServer();

test('an alert posted with the CLI shows on every page until the user closes it', async ({
  page,
  context,
  server,
}) => {
  const message = `Maintenance at 22:00 (${Date.now().toString(36)})`;
  const posted = postern(
    server,
    'alerts',
    'create',
    message,
    '--severity',
    'high',
    '--link',
    'https://status.example.com/maintenance',
  );
  const id = /Posted alert ([0-9a-f-]{36})/.exec(posted)![1]!;

  await addVirtualAuthenticator(context, page, { residentKey: true });
  await signUpWithPasskey(page, server, 'access');
  const banner = page.getByRole('region', { name: 'Cluster alerts' }).getByRole('alert');
  await expect(banner).toContainText(message);
  await expect(banner.getByRole('link', { name: 'More' })).toHaveAttribute(
    'href',
    'https://status.example.com/maintenance',
  );

  // It stays through navigation, and stays closed once closed, across a reload.
  await page.goto('/web/account');
  await expect(banner).toContainText(message);
  await banner.getByRole('button', { name: 'Dismiss alert' }).click();
  await expect(page.getByText(message)).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Account Settings', level: 2 })).toBeVisible();
  await expect(page.getByText(message)).toHaveCount(0);

  // Taken down with the CLI, it is gone from the list too.
  postern(server, 'alerts', 'rm', id);
  expect(postern(server, 'alerts', 'ls').trim()).toBe('No alerts.');
});
