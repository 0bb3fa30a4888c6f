import {
  Alert,
  Button,
  Checkbox,
  CloseButton,
  Group,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import type { CreateAccessRequest } from '@postern/contracts';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import { resourceKindLabels } from './makeRequest';
import {
  durationSuggestions,
  emptyNewRequestForm,
  reasonRequired,
  validateNewRequest,
  type AccessStrategy,
  type NewRequestErrors,
  type NewRequestForm,
} from './newRequestForm';
import type { CartItem } from './resourceCart';
import { FailureAlert } from '../../components/FailureAlert';

export interface NewRequestViewProps {
  requestableRoles: string[];
  suggestedReviewers: string[];
  strategy: AccessStrategy;
  /** The resources in the cart. */
  resources: readonly CartItem[];
  onRemoveResource: (item: CartItem) => void;
  /** Creates the request; rejects with the server's error, which the form shows. */
  onSubmit: (body: CreateAccessRequest) => Promise<void>;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** New Access Request: roles and resources to ask for, why, who should review, for how long. */
export function NewRequestView(props: NewRequestViewProps) {
  const { requestableRoles, suggestedReviewers, strategy, resources, onRemoveResource } = props;
  const [form, setForm] = useState<NewRequestForm>(() => emptyNewRequestForm(suggestedReviewers));
  const [errors, setErrors] = useState<NewRequestErrors>({});
  const [serverError, setServerError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const durationListId = `${useId()}-durations`;
  const set = <K extends keyof NewRequestForm>(key: K, value: NewRequestForm[K]) =>
    setForm((f) => ({ ...f, [key]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { errors: found, body } = validateNewRequest(form, resources, strategy);
    setErrors(found);
    if (!body) return;
    setBusy(true);
    setServerError(undefined);
    try {
      await props.onSubmit(body);
    } catch (err) {
      setServerError(messageOf(err));
      setBusy(false);
    }
  };

  return (
    <Stack gap="md" maw={640}>
      <Title order={2}>New Access Request</Title>
      {strategy.type === 'always' && (
        <Alert color="blue" variant="light">
          Your roles give access only through an approved request: ask for what you need here.
        </Alert>
      )}
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <Checkbox.Group
            label="Roles"
            value={form.roles}
            onChange={(roles) => set('roles', roles)}
            error={errors.roles}
          >
            <Stack gap={6} mt={6}>
              {requestableRoles.map((role) => (
                <Checkbox key={role} value={role} label={role} />
              ))}
              {requestableRoles.length === 0 && (
                <Text size="sm" c="dimmed">
                  No role can be requested; add resources from a resource page.
                </Text>
              )}
            </Stack>
          </Checkbox.Group>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Resources
            </Text>
            {resources.length === 0 ? (
              <Text size="sm" c="dimmed">
                None. Use “Add to request” on the Servers, Applications, Databases, Kubernetes or
                Desktops page to ask for single resources.
              </Text>
            ) : (
              <Stack gap={2} component="ul" aria-label="Requested resources" p={0} m={0}>
                {resources.map((item) => (
                  <Group
                    key={`${item.clusterName}/${item.kind}/${item.name}`}
                    gap="xs"
                    component="li"
                  >
                    <Text size="sm">
                      {resourceKindLabels[item.kind]}: <strong>{item.title}</strong>
                    </Text>
                    <CloseButton
                      size="sm"
                      aria-label={`Remove ${resourceKindLabels[item.kind]} ${item.title}`}
                      onClick={() => onRemoveResource(item)}
                    />
                  </Group>
                ))}
              </Stack>
            )}
          </Stack>
          <Textarea
            label="Reason"
            placeholder={strategy.prompt || 'Why do you need this access?'}
            description={reasonRequired(strategy) ? 'Required by your roles' : undefined}
            value={form.reason}
            onChange={(e) => set('reason', e.currentTarget.value)}
            error={errors.reason}
            rows={3}
          />
          <TextInput
            label="Suggested reviewers"
            description="User names, separated by commas"
            value={form.reviewers}
            onChange={(e) => set('reviewers', e.currentTarget.value)}
            error={errors.reviewers}
            autoComplete="off"
          />
          <TextInput
            label="Duration"
            description="How long the access lasts, counted from now (approval must come within it); empty for your roles' maximum"
            value={form.maxDuration}
            onChange={(e) => set('maxDuration', e.currentTarget.value)}
            error={errors.maxDuration}
            autoComplete="off"
            list={durationListId}
          />
          <datalist id={durationListId}>
            {durationSuggestions.map((d) => (
              <option key={d} value={d} />
            ))}
          </datalist>
          {serverError && (
            <FailureAlert title="Could not create the request" message={serverError} />
          )}
          <Group justify="flex-end" mt="sm">
            <Button variant="default" component={Link} to={routePath('accessRequests')}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Submit Request
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
