import { Button, Menu, Tooltip } from '@mantine/core';

/** One entry of a ChoiceMenu: a link (optionally to a new browser tab) or an action. */
export interface Choice {
  label: string;
  /** Makes the entry a link. */
  href?: string;
  /** With `href`: open in a new browser tab (without access to this one). */
  newTab?: boolean;
  onSelect?: () => void;
}

interface Props {
  /** The button's text, e.g. 'Connect'. */
  label: string;
  /** Accessible name of the button when the text alone is ambiguous in a list. */
  ariaLabel?: string;
  /** A short heading over the entries, e.g. 'Log in as'. */
  heading?: string;
  choices: Choice[];
  /**
   * With no choices: show the button disabled, with this explanation as its tooltip. Without
   * it, no choices means no button at all.
   */
  disabledReason?: string;
  size?: 'compact-xs' | 'compact-sm' | 'xs' | 'sm';
}

/** A button opening a menu of choices (logins to connect with, modes to join in). */
export function ChoiceMenu(props: Props) {
  const { label, ariaLabel, heading, choices, disabledReason, size = 'compact-sm' } = props;
  if (choices.length === 0) {
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
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" size={size} aria-label={ariaLabel}>
          {label} ▾
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {heading && <Menu.Label>{heading}</Menu.Label>}
        {choices.map((choice) =>
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
