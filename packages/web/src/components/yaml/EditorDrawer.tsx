import { Drawer } from '@mantine/core';
import type { ReactNode } from 'react';

interface Props {
  opened: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}

/**
 * The full-width drawer the YAML editors open in. Escape does not close it (it would drop
 * unsaved text); its body is a column, so the editor takes the height the rest leaves.
 */
export function EditorDrawer({ opened, title, onClose, children }: Props) {
  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size="100%"
      title={title}
      closeOnEscape={false}
      closeButtonProps={{ 'aria-label': 'Close the editor' }}
      styles={{
        content: { display: 'flex', flexDirection: 'column' },
        body: { flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' },
      }}
    >
      {children}
    </Drawer>
  );
}
