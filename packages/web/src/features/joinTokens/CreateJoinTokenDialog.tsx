import { joinTokenTtlSuggestions, type CreateJoinTokenRequest } from '@postern/contracts';
import { Modal, MultiSelect, Select, Stack, TagsInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { NavigationBlocker } from '../../app/NavigationBlocker';
import {
  creatableRoles,
  emptyJoinTokenForm,
  joinTokenRequest,
  ttlLabel,
  type JoinTokenFormErrors,
} from './joinTokenForm';
import { DialogActions } from '../../components/DialogActions';

export interface CreateJoinTokenDialogProps {
  opened: boolean;
  onClose: () => void;
  /** Creates the token; rejects with the server's error, which the dialog shows. */
  onSubmit: (request: CreateJoinTokenRequest) => Promise<void>;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

const ttlOptions = joinTokenTtlSuggestions.map((ttl) => ({ value: ttl, label: ttlLabel(ttl) }));

/** Create Join Token: what the joining host may become, the labels it gets, how long it lasts. */
export function CreateJoinTokenDialog(props: CreateJoinTokenDialogProps) {
  const { opened, onClose } = props;
  return (
    <Modal opened={opened} onClose={onClose} title="Create Join Token" size="lg" centered>
      {opened && <JoinTokenForm {...props} />}
    </Modal>
  );
}

function JoinTokenForm({ onClose, onSubmit }: CreateJoinTokenDialogProps) {
  const [initial] = useState(emptyJoinTokenForm);
  const [roles, setRoles] = useState(initial.roles);
  const [labels, setLabels] = useState(initial.labels);
  const [ttl, setTtl] = useState(initial.ttl);
  const edited = JSON.stringify({ roles, labels, ttl }) !== JSON.stringify(initial);
  const [errors, setErrors] = useState<JoinTokenFormErrors>({});
  const [serverError, setServerError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { request, errors: found } = joinTokenRequest({ roles, labels, ttl });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setServerError(undefined);
    try {
      await onSubmit(request);
    } catch (err) {
      setServerError(messageOf(err));
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <NavigationBlocker when={edited && !busy} />
      <Stack gap="sm">
        <MultiSelect
          label="Roles"
          description="What the joining host may become: Node for a server (the agent or an OpenSSH host); App, Db, Kube or WindowsDesktop for an agent serving those"
          placeholder={roles.length === 0 ? 'Choose roles' : undefined}
          data={creatableRoles}
          value={roles}
          onChange={setRoles}
          required
          withAsterisk={false}
          error={errors.roles}
          data-autofocus
        />
        <TagsInput
          label="Labels"
          description="name=value labels every host that joins with it gets, such as env=prod; press Enter after each"
          value={labels}
          onChange={setLabels}
          error={errors.labels}
          clearable
        />
        <Select
          label="Valid for"
          description="Hosts can join with it until then; it can be deleted sooner"
          data={ttlOptions}
          value={ttl}
          onChange={(value) => setTtl(value ?? '')}
          allowDeselect={false}
          error={errors.ttl}
        />
        <DialogActions refusal={serverError} busy={busy} onCancel={onClose} label="Create" />
      </Stack>
    </form>
  );
}
