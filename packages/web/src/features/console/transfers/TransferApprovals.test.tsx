import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../../test/render';
import { TransferApprovals } from './TransferApprovals';
import type { TransferPrompt } from './moderatedTransfers';

const prompt = (over: Partial<TransferPrompt>): TransferPrompt => ({
  requestId: 'r1',
  requester: 'alice',
  download: true,
  location: '/etc/hosts',
  approvers: [],
  approvedHere: false,
  own: false,
  ...over,
});

describe('TransferApprovals', () => {
  it('asks about each request and sends the choice', async () => {
    const onDecide = vi.fn();
    renderWithTheme(
      <TransferApprovals
        prompts={[
          prompt({}),
          prompt({ requestId: 'r2', download: false, location: '/tmp', filename: 'notes.txt' }),
        ]}
        onDecide={onDecide}
      />,
    );
    const download = screen.getByRole('listitem', { name: 'alice wants to download /etc/hosts' });
    await userEvent.click(within(download).getByRole('button', { name: 'Approve' }));
    expect(onDecide).toHaveBeenCalledWith('r1', true);
    const upload = screen.getByRole('listitem', {
      name: 'alice wants to upload notes.txt to /tmp',
    });
    await userEvent.click(within(upload).getByRole('button', { name: 'Deny' }));
    expect(onDecide).toHaveBeenCalledWith('r2', false);
  });

  it('approves every request not yet approved here with one click', async () => {
    const onDecide = vi.fn();
    renderWithTheme(
      <TransferApprovals
        prompts={[
          prompt({}),
          prompt({ requestId: 'r2', approvedHere: true, approvers: ['bob'] }),
          prompt({ requestId: 'r3', download: false, location: '/tmp', filename: 'b.txt' }),
        ]}
        onDecide={onDecide}
      />,
    );
    const all = screen.getByRole('listitem', { name: 'All requests' });
    expect(all.textContent).toContain('2 requests wait for your decision');
    await userEvent.click(within(all).getByRole('button', { name: 'Approve all' }));
    expect(onDecide.mock.calls).toEqual([
      ['r1', true],
      ['r3', true],
    ]);
  });

  it('offers no Approve all for a single request, nor to an observer', () => {
    const { rerender } = renderWithTheme(
      <TransferApprovals prompts={[prompt({})]} onDecide={vi.fn()} />,
    );
    expect(screen.queryByRole('button', { name: 'Approve all' })).toBeNull();
    rerender(
      <TransferApprovals
        prompts={[prompt({}), prompt({ requestId: 'r2' })]}
        onDecide={vi.fn()}
        canDecide={false}
      />,
    );
    expect(screen.queryByRole('button', { name: 'Approve all' })).toBeNull();
  });

  it('says who approved already, and asks no more here once this tab did', () => {
    renderWithTheme(
      <TransferApprovals
        prompts={[prompt({ approvers: ['bob'], approvedHere: true })]}
        onDecide={vi.fn()}
      />,
    );
    expect(screen.getByText(/approved by bob, waiting for others/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
  });

  it('shows an observer what is asked, without buttons: the server lets observers not decide', () => {
    renderWithTheme(
      <TransferApprovals prompts={[prompt({})]} onDecide={vi.fn()} canDecide={false} />,
    );
    expect(
      screen.getByRole('listitem', { name: 'alice wants to download /etc/hosts' }),
    ).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Deny' })).toBeNull();
  });

  it('shows nothing while nothing waits', () => {
    renderWithTheme(<TransferApprovals prompts={[]} onDecide={vi.fn()} />);
    expect(screen.queryByRole('list', { name: 'File transfer requests' })).toBeNull();
  });

  it("shows the viewer's own requests from another tab to withdraw, never to approve", async () => {
    const onDecide = vi.fn();
    renderWithTheme(
      <TransferApprovals
        prompts={[
          prompt({ own: true }),
          prompt({ requestId: 'r2', own: true }),
          prompt({ requestId: 'r3', requester: 'carol' }),
        ]}
        onDecide={onDecide}
        canWithdraw
      />,
    );
    const own = screen.getAllByRole('listitem', {
      name: 'You asked to download /etc/hosts from another tab',
    });
    expect(own).toHaveLength(2);
    expect(within(own[0]!).queryByRole('button', { name: 'Approve' })).toBeNull();
    await userEvent.click(within(own[0]!).getByRole('button', { name: 'Withdraw' }));
    expect(onDecide).toHaveBeenCalledWith('r1', false);
    // Approve all counts only the others' requests: one here, so it is not offered.
    expect(screen.queryByRole('button', { name: 'Approve all' })).toBeNull();
    expect(
      screen.getByRole('listitem', { name: 'carol wants to download /etc/hosts' }),
    ).toBeTruthy();
  });

  it('offers no withdraw where the server would refuse it (a moderator tab)', () => {
    renderWithTheme(<TransferApprovals prompts={[prompt({ own: true })]} onDecide={vi.fn()} />);
    const own = screen.getByRole('listitem', {
      name: 'You asked to download /etc/hosts from another tab',
    });
    expect(within(own).queryByRole('button')).toBeNull();
  });
});
