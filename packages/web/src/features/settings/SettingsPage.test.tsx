import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { clientConfigSchema } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { renderPage } from '../../test/renderPage';
import { SettingsPage } from './SettingsPage';

const config = clientConfigSchema.parse({ ui: { scrollbackLines: 2000 } });

describe('SettingsPage', () => {
  it('stores each change at once and shows the cluster default until then', async () => {
    const user = userEvent.setup();
    renderPage(<SettingsPage />, { config });
    const scrollback = screen.getByLabelText('Scrollback lines') as HTMLInputElement;
    expect(scrollback.value).toBe('2000');
    expect(screen.getByText('Lines kept above the screen. Default: 2000.')).toBeTruthy();

    await user.clear(scrollback);
    await user.type(scrollback, '300');
    expect(localStorage.getItem('grv_teleport_terminal_scrollback')).toBe('300');

    const size = screen.getByLabelText('Font size') as HTMLInputElement;
    await user.clear(size);
    // Too small while typing: nothing stored until it is a size the terminal takes.
    await user.type(size, '2');
    expect(localStorage.getItem('grv_teleport_terminal_font_size')).toBeNull();
    await user.type(size, '0');
    expect(localStorage.getItem('grv_teleport_terminal_font_size')).toBe('20');

    await user.click(screen.getByRole('button', { name: 'Restore defaults' }));
    await waitFor(() => expect(scrollback.value).toBe('2000'));
    expect(size.value).toBe('14');
    expect(localStorage.getItem('grv_teleport_terminal_scrollback')).toBeNull();
    expect(localStorage.getItem('grv_teleport_date_format')).toBeNull();
  });

  it("offers the cluster's date-time format as the default, and stores a pick until restored", async () => {
    const user = userEvent.setup();
    const withLoc = clientConfigSchema.parse({ loc: { dateTimeFormat: 'MMM dd, yyyy HH:mm' } });
    renderPage(<SettingsPage />, { config: withLoc });
    const dateFormat = screen.getByLabelText('Date format', {
      selector: 'input',
    }) as HTMLInputElement;
    expect(dateFormat.value).toMatch(/^Default \([A-Z][a-z]{2} \d{2}, \d{4} \d{2}:\d{2}\)$/);

    await user.click(dateFormat);
    await user.click(await screen.findByRole('option', { name: /^DD\.MM\.YYYY/, hidden: true }));
    expect(localStorage.getItem('grv_teleport_date_format')).toBe('DD.MM.YYYY');

    await user.click(screen.getByRole('button', { name: 'Restore defaults' }));
    await waitFor(() => expect(dateFormat.value).toMatch(/^Default /));
    expect(localStorage.getItem('grv_teleport_date_format')).toBeNull();
  });
});
