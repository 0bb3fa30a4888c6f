import { Button, Menu } from '@mantine/core';

export interface RowAction {
  label: string;
  onClick: () => void;
  color?: string;
}

/** A table row's actions behind one 'Options' button; nothing when none is allowed. */
export function RowActions({
  actions,
  label = 'Options',
}: {
  actions: RowAction[];
  label?: string;
}) {
  if (actions.length === 0) return null;
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="subtle" size="compact-sm">
          {label}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {actions.map((action) => (
          <Menu.Item key={action.label} color={action.color} onClick={action.onClick}>
            {action.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
