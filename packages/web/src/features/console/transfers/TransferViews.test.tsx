import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../../test/render';
import { DownloadDialog, UploadDialog } from './TransferDialogs';
import { formatBytes, TransferPanel } from './TransferPanel';
import type { Transfer } from './transferStore';

const transfer = (over: Partial<Transfer>): Transfer => ({
  id: 't1',
  direction: 'upload',
  name: 'notes.txt',
  remotePath: '~',
  loaded: 0,
  total: undefined,
  status: 'running',
  error: '',
  ...over,
});

describe('TransferPanel', () => {
  it('shows nothing without transfers', () => {
    renderWithTheme(<TransferPanel transfers={[]} onCancel={vi.fn()} onDismiss={vi.fn()} />);
    expect(screen.queryByRole('list', { name: 'File transfers' })).toBeNull();
  });

  it('shows progress, percent and cancel for a running transfer, errors for a failed one', async () => {
    const onCancel = vi.fn();
    const onDismiss = vi.fn();
    renderWithTheme(
      <TransferPanel
        transfers={[
          transfer({ loaded: 420, total: 1000 }),
          transfer({
            id: 't2',
            direction: 'download',
            name: 'syslog',
            remotePath: '/var/log/syslog',
            status: 'failed',
            error: '/var/log/syslog: permission denied',
          }),
        ]}
        onCancel={onCancel}
        onDismiss={onDismiss}
      />,
    );
    const upload = screen.getByRole('listitem', { name: 'Upload notes.txt' });
    expect(within(upload).getByRole('status').textContent).toContain('42%');
    const bar = within(upload).getByRole('progressbar', { name: 'Upload notes.txt progress' });
    expect(bar.getAttribute('aria-valuenow')).toBe('42');
    await userEvent.click(within(upload).getByRole('button', { name: 'Cancel' }));
    expect(onCancel).toHaveBeenCalledWith('t1');

    const download = screen.getByRole('listitem', { name: 'Download syslog' });
    expect(within(download).getByText('from /var/log/syslog')).toBeTruthy();
    expect(within(download).getByRole('alert').textContent).toContain(
      '/var/log/syslog: permission denied',
    );
    await userEvent.click(within(download).getByRole('button', { name: 'Dismiss' }));
    expect(onDismiss).toHaveBeenCalledWith('t2');
  });

  it('shows bytes while the total is unknown, and how finished transfers ended', () => {
    renderWithTheme(
      <TransferPanel
        transfers={[
          transfer({ direction: 'download', name: 'a', loaded: 3 * 1024 * 1024 }),
          transfer({ id: 't2', name: 'b', status: 'done' }),
          transfer({ id: 't3', name: 'c', status: 'cancelled' }),
        ]}
        onCancel={vi.fn()}
        onDismiss={vi.fn()}
      />,
    );
    const status = (name: string) =>
      within(screen.getByRole('listitem', { name })).getByRole('status');
    expect(status('Download a').textContent).toContain('3.0 MiB');
    expect(status('Upload b').textContent).toContain('Done');
    expect(status('Upload c').textContent).toContain('Cancelled');
  });

  it('formats sizes', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5.0 GiB');
  });
});

describe('UploadDialog', () => {
  it('uploads the picked files to the home directory unless told otherwise', async () => {
    const onUpload = vi.fn();
    const onClose = vi.fn();
    renderWithTheme(<UploadDialog opened onClose={onClose} onUpload={onUpload} />);
    const submit = screen.getByRole('button', { name: 'Upload' });
    expect((submit as HTMLButtonElement).disabled).toBe(true);
    const file = new File(['x'], 'x.txt');
    await userEvent.upload(screen.getByLabelText('Files'), file);
    const directory = screen.getByRole('textbox', { name: /Destination directory/ });
    expect((directory as HTMLInputElement).value).toBe('~');
    await userEvent.clear(directory);
    await userEvent.type(directory, '/tmp');
    await userEvent.click(submit);
    expect(onUpload).toHaveBeenCalledWith([file], '/tmp');
    expect(onClose).toHaveBeenCalled();
  });
});

describe('DownloadDialog', () => {
  it('downloads the named path', async () => {
    const onDownload = vi.fn();
    renderWithTheme(<DownloadDialog opened onClose={vi.fn()} onDownload={onDownload} />);
    expect((screen.getByRole('button', { name: 'Download' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    await userEvent.type(screen.getByRole('textbox', { name: /File path/ }), ' /etc/hostname ');
    await userEvent.click(screen.getByRole('button', { name: 'Download' }));
    expect(onDownload).toHaveBeenCalledWith('/etc/hostname');
  });
});
