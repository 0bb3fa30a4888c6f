import { Modal, Stack, TextInput } from '@mantine/core';
import {
  assistTitleMaxChars,
  setAssistTitleRequestSchema,
  type AssistConversation,
} from '@postern/contracts';
import { useState, type FormEvent } from 'react';
import { DialogActions } from '../../components/DialogActions';

interface Props {
  conversation: AssistConversation | null;
  onClose: () => void;
  /** A rejection keeps the dialog open with the server's answer. */
  onRename: (conversation: AssistConversation, title: string) => Promise<void>;
}

export function RenameDialog({ conversation, onClose, onRename }: Props) {
  return (
    <Modal opened={conversation !== null} onClose={onClose} title="Rename conversation" centered>
      {conversation && (
        <RenameForm conversation={conversation} onClose={onClose} onRename={onRename} />
      )}
    </Modal>
  );
}

function RenameForm({
  conversation,
  onClose,
  onRename,
}: Props & { conversation: AssistConversation }) {
  const [title, setTitle] = useState(conversation.title);
  const [invalid, setInvalid] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const request = setAssistTitleRequestSchema.safeParse({ title });
    if (!request.success) {
      setInvalid(request.error.issues[0]?.message);
      return;
    }
    setBusy(true);
    setFailure(undefined);
    try {
      await onRename(conversation, request.data.title);
    } catch (err) {
      setFailure(err instanceof Error ? err.message : String(err));
      setBusy(false);
      return;
    }
    onClose();
  };

  return (
    <form onSubmit={(event) => void submit(event)}>
      <Stack gap="md">
        <TextInput
          label="Title"
          value={title}
          onChange={(event) => {
            setTitle(event.currentTarget.value);
            setInvalid(undefined);
          }}
          maxLength={assistTitleMaxChars}
          error={invalid}
          data-autofocus
        />
        <DialogActions refusal={failure} busy={busy} onCancel={onClose} label="Save" />
      </Stack>
    </form>
  );
}
