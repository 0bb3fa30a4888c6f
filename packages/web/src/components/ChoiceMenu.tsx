import { Box, Button, Menu, Tooltip } from '@mantine/core';
import { useState, type KeyboardEvent, type ReactNode } from 'react';

/** One entry of a ChoiceMenu: a link (optionally to a new browser tab) or an action. */
export interface Choice {
  label: string;
  /** Makes the entry a link. */
  href?: string;
  /** With `href`: open in a new browser tab (without access to this one). */
  newTab?: boolean;
  onSelect?: () => void;
}

/**
 * A text field at the top of the menu: typing narrows the list, and Enter on text that no
 * highlighted entry matches turns the text into a choice and takes it.
 */
export interface TypedChoice {
  /** The field's accessible name, e.g. 'Login'. */
  label: string;
  placeholder?: string;
  toChoice: (text: string) => Choice;
}

interface Props {
  /** The button's text, e.g. 'Connect'. */
  label: string;
  /** Accessible name of the button when the text alone is ambiguous in a list. */
  ariaLabel?: string;
  /** A short heading over the entries, e.g. 'Log in as'. */
  heading?: string;
  choices: Choice[];
  /** Lets the user type a choice that is not in the list. The menu then opens even when empty. */
  typed?: TypedChoice;
  /** Shown in an open menu that has no choices (why, and what to do about it). */
  emptyNote?: ReactNode;
  /**
   * With no choices and nothing to type: show the button disabled, with this explanation as its
   * tooltip. Without it, no choices means no button at all.
   */
  disabledReason?: string;
  size?: 'compact-xs' | 'compact-sm' | 'xs' | 'sm';
  /**
   * Shown at the top of the open menu, above the choices (what is known about the target now,
   * e.g. that a session is already open on it). Informs; never blocks a choice.
   */
  note?: ReactNode;
  /** Told when the menu opens and closes (e.g. to check something only while it is open). */
  onOpenChange?: (opened: boolean) => void;
}

/** Takes a choice outside the menu's own items (a typed one): a link is followed, an action run. */
export function takeChoice(choice: Choice) {
  if (choice.href && choice.newTab) window.open(choice.href, '_blank', 'noopener,noreferrer');
  else if (choice.href) window.location.assign(choice.href);
  choice.onSelect?.();
}

/** A button opening a menu of choices (logins to connect with, modes to join in). */
export function ChoiceMenu(props: Props) {
  const { label, ariaLabel, heading, choices, typed, emptyNote, disabledReason } = props;
  const { size = 'compact-sm', note, onOpenChange } = props;
  const [opened, setOpenedState] = useState(false);
  const setOpened = (next: boolean) => {
    setOpenedState(next);
    onOpenChange?.(next);
  };
  const [text, setText] = useState('');
  if (choices.length === 0 && !typed) {
    if (!disabledReason) return null;
    // A disabled button gets no pointer events; data-disabled keeps the tooltip working.
    return (
      <Tooltip label={disabledReason} withinPortal={false}>
        <Button
          variant="default"
          size={size}
          data-disabled
          aria-disabled="true"
          aria-label={ariaLabel}
          aria-description={disabledReason}
          onClick={(e) => e.preventDefault()}
        >
          {label}
        </Button>
      </Tooltip>
    );
  }

  // Typing narrows the list; Enter takes the highlighted entry (arrow keys) or the text itself.
  const wanted = text.trim();
  const shown = choices.filter((c) => c.label.toLowerCase().includes(wanted.toLowerCase()));
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter' || !typed || wanted === '') return;
    const dropdown = event.currentTarget.closest('[data-menu-dropdown]');
    if (dropdown?.querySelector('[data-menu-active]')) return;
    event.preventDefault();
    takeChoice(typed.toChoice(wanted));
    setOpened(false);
  };

  return (
    <Menu position="bottom-end" withinPortal opened={opened} onChange={setOpened}>
      <Menu.Target>
        <Button variant="default" size={size} aria-label={ariaLabel}>
          {label} ▾
        </Button>
      </Menu.Target>
      <Menu.Dropdown maw={320}>
        {note && (
          <Box px="sm" py={6} fz="sm" style={{ whiteSpace: 'normal' }}>
            {note}
          </Box>
        )}
        {typed && (
          <Menu.Search
            aria-label={typed.label}
            placeholder={typed.placeholder}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            onKeyDown={onKeyDown}
            autoComplete="off"
            spellCheck={false}
          />
        )}
        {choices.length === 0 && emptyNote && (
          <Box px="sm" py={6} fz="sm" style={{ whiteSpace: 'normal' }}>
            {emptyNote}
          </Box>
        )}
        {shown.length > 0 && heading && <Menu.Label>{heading}</Menu.Label>}
        {shown.map((choice) =>
          choice.href ? (
            <Menu.Item
              key={choice.label}
              component="a"
              href={choice.href}
              onClick={choice.onSelect}
              {...(choice.newTab ? { target: '_blank', rel: 'noopener noreferrer' } : {})}
            >
              {choice.label}
            </Menu.Item>
          ) : (
            <Menu.Item key={choice.label} onClick={choice.onSelect}>
              {choice.label}
            </Menu.Item>
          ),
        )}
      </Menu.Dropdown>
    </Menu>
  );
}
