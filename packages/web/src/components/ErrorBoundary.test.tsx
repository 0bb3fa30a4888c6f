import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { InternalError } from '../app/fallbacks/InternalError';
import { renderWithTheme } from '../test/render';
import { ErrorBoundary } from './ErrorBoundary';

describe('ErrorBoundary with the Internal Error screen', () => {
  it('shows the message and re-renders the children on retry', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let fail = true;
    function Flaky() {
      if (fail) throw new Error('boom: page broke');
      return <p>page is fine</p>;
    }
    renderWithTheme(
      <ErrorBoundary
        fallback={(error, retry) => <InternalError message={error.message} onRetry={retry} />}
      >
        <Flaky />
      </ErrorBoundary>,
    );
    expect(screen.getByText('Internal Error')).toBeTruthy();
    expect(screen.getByText('boom: page broke')).toBeTruthy();

    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(screen.getByText('page is fine')).toBeTruthy();
    vi.restoreAllMocks();
  });
});
