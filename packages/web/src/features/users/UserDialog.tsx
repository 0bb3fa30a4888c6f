import {
  userNameSchema,
  type UserTraitName,
  type UserTraits,
  type UserUpsertRequest,
} from '@postern/contracts';
import { Modal, MultiSelect, SimpleGrid, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { NavigationBlocker } from '../../app/NavigationBlocker';
import { emptyTraits, traitFields, type User } from './makeUser';
import { DialogActions } from '../../components/DialogActions';

export type UserDialogTarget = { mode: 'create' } | { mode: 'edit'; user: User };

export interface UserDialogProps {
  /** Open while there is a target. */
  target: UserDialogTarget | null;
  /** Role names to choose from; undefined when the user cannot list roles (free text then). */
  roleOptions: string[] | undefined;
  onClose: () => void;
  /** Creates or updates; rejects with the server's error, which the dialog shows. */
  onSubmit: (request: UserUpsertRequest, target: UserDialogTarget) => Promise<void>;
}

export const userDialogTitle = (target: UserDialogTarget) =>
  target.mode === 'create' ? 'Create User' : `Edit User ${target.user.name}`;

/** Create User and Edit User: name (create only), roles and traits. */
export function UserDialog({ target, roleOptions, onClose, onSubmit }: UserDialogProps) {
  return (
    <Modal
      opened={target !== null}
      onClose={onClose}
      title={target ? userDialogTitle(target) : ''}
      size="lg"
      centered
    >
      {target && (
        <UserForm
          key={target.mode === 'edit' ? target.user.name : 'create'}
          target={target}
          roleOptions={roleOptions}
          onClose={onClose}
          onSubmit={onSubmit}
        />
      )}
    </Modal>
  );
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

function UserForm({
  target,
  roleOptions,
  onClose,
  onSubmit,
}: Omit<UserDialogProps, 'target'> & { target: UserDialogTarget }) {
  const editing = target.mode === 'edit' ? target.user : undefined;
  const [initial] = useState(() => ({
    name: editing?.name ?? '',
    roles: editing?.roles ?? [],
    traits: editing?.traits ?? emptyTraits(),
  }));
  const [name, setName] = useState(initial.name);
  const [roles, setRoles] = useState<string[]>(initial.roles);
  const [traits, setTraits] = useState<UserTraits>(initial.traits);
  // Unsaved edits ask before the page is left (spec §2); the values are small, so compare as JSON.
  const edited = JSON.stringify({ name, roles, traits }) !== JSON.stringify(initial);
  const [errors, setErrors] = useState<{ name?: string; roles?: string }>({});
  const [serverError, setServerError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const setTrait = (trait: UserTraitName, values: string[]) =>
    setTraits((t) => ({ ...t, [trait]: values }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const nameCheck = userNameSchema.safeParse(name.trim());
    const found = {
      name: nameCheck.success
        ? undefined
        : `Username ${nameCheck.error.issues[0]?.message ?? 'is invalid'}`,
      roles: roles.length === 0 ? 'Give the user at least one role' : undefined,
    };
    setErrors(found);
    if (found.name || found.roles) return;
    setBusy(true);
    setServerError(undefined);
    try {
      await onSubmit({ name: name.trim(), roles, traits }, target);
    } catch (err) {
      setServerError(messageOf(err));
      setBusy(false);
    }
  };

  // Roles the user holds but the list does not show (roles one cannot read) stay choosable.
  const roleData = roleOptions && [...new Set([...roleOptions, ...roles])].sort();

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <NavigationBlocker when={edited && !busy} />
      <Stack gap="sm">
        <TextInput
          label="Username"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          disabled={target.mode === 'edit'}
          required
          // Labels stay exactly their text (no asterisk); the form says what is missing.
          withAsterisk={false}
          error={errors.name}
          autoComplete="off"
          data-autofocus={target.mode === 'create' || undefined}
        />
        {roleData ? (
          <MultiSelect
            label="Roles"
            placeholder={roles.length === 0 ? 'Choose roles' : undefined}
            data={roleData}
            value={roles}
            onChange={setRoles}
            searchable
            required
            withAsterisk={false}
            error={errors.roles}
            nothingFoundMessage="No such role"
          />
        ) : (
          <TagsInput
            label="Roles"
            description="Type a role name and press Enter"
            value={roles}
            onChange={setRoles}
            required
            withAsterisk={false}
            error={errors.roles}
          />
        )}
        <Text size="sm" fw={600} mt="xs">
          Traits
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          {traitFields.map((field) => (
            <TagsInput
              key={field.name}
              label={field.label}
              value={traits[field.name]}
              onChange={(values) => setTrait(field.name, values)}
              clearable
            />
          ))}
        </SimpleGrid>
        <DialogActions
          refusal={serverError}
          busy={busy}
          onCancel={onClose}
          label={target.mode === 'create' ? 'Create' : 'Save'}
        />
      </Stack>
    </form>
  );
}
