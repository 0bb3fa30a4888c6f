import { Modal, Stack } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { DialogActions } from './DialogActions';

interface Props {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  confirmColor?: string;
  /** Runs the action; a rejection keeps the dialog open with the error shown. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Asks before an action and shows the server's answer when it fails. */
export function ConfirmDialog(props: Props) {
  const { opened, title, onClose } = props;
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      {opened && <ConfirmBody {...props} />}
    </Modal>
  );
}

function ConfirmBody({ children, confirmLabel, confirmColor, onConfirm, onClose }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
      return;
    }
    onClose();
  };

  return (
    <Stack gap="md">
      {children}
      <DialogActions
        refusal={error}
        busy={busy}
        onCancel={onClose}
        label={confirmLabel}
        color={confirmColor}
        onConfirm={() => void confirm()}
      />
    </Stack>
  );
}
