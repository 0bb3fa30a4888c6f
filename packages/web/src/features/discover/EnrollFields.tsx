import { TextInput } from '@mantine/core';
import type { EnrollInput, EnrollInputErrors } from './enrollInput';
import type { EnrollForm } from './enrollKinds';

interface Props {
  form: EnrollForm;
  input: EnrollInput;
  errors: EnrollInputErrors;
  onChange: (input: EnrollInput) => void;
}

/** The fields a kind's command needs, checked by the install links' own rules. */
export function EnrollFields({ form, input, errors, onChange }: Props) {
  const field = (key: keyof EnrollInput) => ({
    value: input[key],
    error: errors[key],
    onChange: (event: React.ChangeEvent<HTMLInputElement>) =>
      onChange({ ...input, [key]: event.currentTarget.value }),
  });
  if (form.type === 'labels') {
    return (
      <TextInput
        label="Labels"
        description="Optional: name=value pairs, comma-separated; roles grant servers by them"
        placeholder="env=prod, team=web"
        {...field('labels')}
      />
    );
  }
  return (
    <>
      <TextInput
        label="Name"
        description="How people will find it: a-z, 0-9 and inner dashes"
        placeholder="grafana"
        required
        {...field('name')}
      />
      {form.type === 'nameUri' ? (
        <TextInput
          label={form.uriLabel}
          description={form.uriHint}
          placeholder={form.uriPlaceholder}
          required
          {...field('uri')}
        />
      ) : (
        <TextInput
          label="Kubeconfig"
          description="Its path on the agent host; the credential in it never leaves that host"
          placeholder="/home/ops/.kube/config"
          required
          {...field('kubeconfig')}
        />
      )}
    </>
  );
}
