import { act, renderHook, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../test/render';
import { ChoiceMenu } from './ChoiceMenu';
import { pageRange, pagingStack, useCursorPaging } from './cursorPaging';
import { FilterChips, LabelChips } from './LabelChips';
import { Pager } from './Pager';
import { SearchInput } from './SearchInput';

describe('cursor paging', () => {
  it('keeps a stack of start keys: Next pushes, Prev pops', () => {
    const { result } = renderHook(() => useCursorPaging('filters-1'));
    expect(result.current).toMatchObject({ startKey: '', pageIndex: 0, canPrev: false });
    act(() => result.current.next('k1'));
    act(() => result.current.next('k2'));
    expect(result.current).toMatchObject({ startKey: 'k2', pageIndex: 2, canPrev: true });
    act(() => result.current.prev());
    expect(result.current).toMatchObject({ startKey: 'k1', pageIndex: 1 });
    act(() => result.current.prev());
    act(() => result.current.prev());
    expect(result.current).toMatchObject({ startKey: '', pageIndex: 0, canPrev: false });
  });

  it('new filters go back to page 1 at once', () => {
    const { result, rerender } = renderHook(({ key }) => useCursorPaging(key), {
      initialProps: { key: 'search=a' },
    });
    act(() => result.current.next('k1'));
    rerender({ key: 'search=ab' });
    expect(result.current).toMatchObject({ startKey: '', pageIndex: 0 });
    act(() => result.current.next('k9'));
    expect(result.current.startKey).toBe('k9');
    rerender({ key: 'search=a' });
    expect(result.current.startKey).toBe('');
  });

  it('an empty next key (the last page) does not push', () => {
    expect(pagingStack.next([''], '')).toEqual(['']);
    expect(pagingStack.prev([''])).toEqual(['']);
  });

  it('computes x–y of N', () => {
    expect(pageRange(0, 15, 15, 40)).toEqual({ from: 1, to: 15, total: 40 });
    expect(pageRange(2, 15, 10, 40)).toEqual({ from: 31, to: 40, total: 40 });
    expect(pageRange(0, 15, 0, 0)).toEqual({ from: 0, to: 0, total: 0 });
  });
});

describe('Pager', () => {
  it('shows the range and disables what cannot be done', async () => {
    const onPrev = vi.fn();
    const onNext = vi.fn();
    renderWithTheme(
      <Pager
        from={16}
        to={30}
        total={40}
        canPrev
        canNext={false}
        onPrev={onPrev}
        onNext={onNext}
        itemsLabel="servers"
      />,
    );
    expect(screen.getByRole('navigation', { name: 'Pages of servers' }).textContent).toContain(
      '16–30 of 40',
    );
    expect(screen.getByRole('button', { name: 'Next page' })).toHaveProperty('disabled', true);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Previous page' }));
    expect(onPrev).toHaveBeenCalled();
  });
});

describe('label chips', () => {
  it('selectable chips report their label; filter chips can be removed', async () => {
    const user = userEvent.setup();
    const onSelect = vi.fn();
    const onRemove = vi.fn();
    renderWithTheme(
      <>
        <LabelChips labels={[{ name: 'env', value: 'prod' }]} onSelect={onSelect} />
        <FilterChips labels={[{ name: 'team', value: 'db' }]} onRemove={onRemove} />
      </>,
    );
    await user.click(screen.getByRole('button', { name: 'env: prod' }));
    expect(onSelect).toHaveBeenCalledWith({ name: 'env', value: 'prod' });
    await user.click(screen.getByRole('button', { name: 'Remove filter team: db' }));
    expect(onRemove).toHaveBeenCalledWith({ name: 'team', value: 'db' });
  });

  it('plain chips are not buttons, and no labels render nothing', () => {
    renderWithTheme(<LabelChips labels={[{ name: 'os', value: 'linux' }]} />);
    expect(screen.getByText('os: linux')).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
  });
});

describe('SearchInput', () => {
  it('reports the text once typing pauses, and follows outside changes', async () => {
    const onSearch = vi.fn();
    function Harness() {
      const [value, setValue] = useState('');
      return (
        <>
          <SearchInput
            value={value}
            onSearch={(v) => {
              onSearch(v);
              setValue(v);
            }}
            // Long enough that no gap between typed keys reaches it on a busy machine.
            delayMs={400}
          />
          <button onClick={() => setValue('')}>reset</button>
        </>
      );
    }
    const user = userEvent.setup();
    renderWithTheme(<Harness />);
    const box = screen.getByRole('searchbox', { name: 'Search' }) as HTMLInputElement;
    await user.type(box, 'db-1');
    await waitFor(() => expect(onSearch).toHaveBeenCalledWith('db-1'));
    expect(onSearch).toHaveBeenCalledTimes(1);
    await user.click(screen.getByRole('button', { name: 'reset' }));
    expect(box.value).toBe('');
  });
});

describe('ChoiceMenu', () => {
  it('actions call back; no choices and no reason render nothing', async () => {
    const onSelect = vi.fn();
    const user = userEvent.setup();
    const { rerender } = renderWithTheme(
      <ChoiceMenu label="Join" choices={[{ label: 'As a peer', onSelect }]} />,
    );
    await user.click(screen.getByRole('button', { name: /Join/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'As a peer' }));
    expect(onSelect).toHaveBeenCalled();
    rerender(<ChoiceMenu label="Join" choices={[]} />);
    expect(screen.queryByRole('button', { name: /Join/ })).toBeNull();
  });

  it('shows a note above the choices while open, and says when it opens and closes', async () => {
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderWithTheme(
      <ChoiceMenu
        label="Connect"
        choices={[{ label: 'alice', href: '/x/alice', newTab: true }]}
        note={<span>Someone is in a session here</span>}
        onOpenChange={onOpenChange}
      />,
    );
    expect(screen.queryByText('Someone is in a session here')).toBeNull();
    await user.click(screen.getByRole('button', { name: /Connect/ }));
    expect(await screen.findByText('Someone is in a session here')).toBeTruthy();
    expect(onOpenChange).toHaveBeenLastCalledWith(true);
    // The note informs; the choice stays there to take.
    expect(screen.getByRole('menuitem', { name: 'alice' }).getAttribute('href')).toBe('/x/alice');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(onOpenChange).toHaveBeenLastCalledWith(false));
  });
});
