import { Button, Group, type MantineColor } from '@mantine/core';
import { FailureAlert } from './FailureAlert';

interface Props {
  /** What the server answered to the last try, shown above the buttons. */
  refusal: string | undefined;
  busy: boolean;
  onCancel: () => void;
  /** The action's button: Save, Create, Delete… */
  label: string;
  color?: MantineColor;
  /** Without it the action submits the dialog's form. */
  onConfirm?: () => void;
}

/**
 * A dialog's footer, the same in every dialog that asks the server: the server's refusal, then
 * Cancel (held while the call runs) and the action, which shows the call running.
 */
export function DialogActions({ refusal, busy, onCancel, label, color, onConfirm }: Props) {
  return (
    <>
      {refusal && <FailureAlert title="The server refused" message={refusal} />}
      <Group justify="flex-end" mt="sm">
        <Button variant="default" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button
          type={onConfirm ? 'button' : 'submit'}
          color={color}
          loading={busy}
          onClick={onConfirm}
        >
          {label}
        </Button>
      </Group>
    </>
  );
}
