import { Group, Select, Stack, Text, TextInput } from '@mantine/core';
import type { KubeResourceItem } from '@postern/contracts';
import { defaultKubeExecCommand } from '../../app/routes';
import { NewTabButton } from '../../components/connect/NewTabButton';
import type { Attempt } from '../../lib/attempt';

/** What the picker has chosen so far ('' for nothing yet). */
export interface ExecChoice {
  namespace: string;
  pod: string;
  /** The pod's first container until another is picked. */
  container: string;
  command: string;
}

interface Props {
  namespaces: Attempt<KubeResourceItem[]>;
  /** The chosen namespace's pods; undefined until a namespace is chosen. */
  pods: Attempt<KubeResourceItem[]> | undefined;
  choice: ExecChoice;
  onNamespaceChange: (namespace: string) => void;
  onPodChange: (pod: string) => void;
  onContainerChange: (container: string) => void;
  onCommandChange: (command: string) => void;
  /** The exec page for the choice; undefined until namespace, pod and container are chosen. */
  href: string | undefined;
}

/** A pod's containers, in order; none before the pod is chosen or its list has loaded. */
export function containersOf(pods: Attempt<KubeResourceItem[]> | undefined, pod: string) {
  if (pods?.status !== 'success') return [];
  return pods.data.find((item) => item.name === pod)?.containers ?? [];
}

/**
 * Exec in browser: namespace, then pod, then container and command, then a terminal in a new
 * browser tab. The lists hold only what the roles and the cluster let the user see; a refusal
 * shows the server's reason in place of the list.
 */
export function ExecPickerView(props: Props) {
  const { namespaces, pods, choice, href } = props;
  const chosenPod =
    pods?.status === 'success' ? pods.data.find((p) => p.name === choice.pod) : undefined;
  const containers = containersOf(pods, choice.pod);
  return (
    <Stack gap="xs">
      <ResourceSelect
        label="Namespace"
        what="namespaces"
        attempt={namespaces}
        value={choice.namespace}
        onChange={props.onNamespaceChange}
      />
      {pods && (
        <ResourceSelect
          label="Pod"
          what={`pods in ${choice.namespace}`}
          attempt={pods}
          value={choice.pod}
          onChange={props.onPodChange}
          description={chosenPod?.status ? `Status: ${chosenPod.status}` : undefined}
        />
      )}
      {chosenPod && (
        <Select
          label="Container"
          data={containers}
          value={choice.container || null}
          onChange={(value) => value !== null && props.onContainerChange(value)}
          allowDeselect={false}
          disabled={containers.length === 0}
          placeholder={containers.length === 0 ? 'This pod lists no containers' : undefined}
          comboboxProps={{ withinPortal: false }}
        />
      )}
      <TextInput
        label="Command"
        value={choice.command}
        onChange={(event) => props.onCommandChange(event.currentTarget.value)}
        placeholder={defaultKubeExecCommand}
        description="Run in the container; its words are split on spaces."
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
      />
      <Group justify="flex-end">
        <NewTabButton href={href}>Open terminal</NewTabButton>
      </Group>
    </Stack>
  );
}

interface ResourceSelectProps {
  label: string;
  /** What the list holds, for its loading, empty and error texts. */
  what: string;
  attempt: Attempt<KubeResourceItem[]>;
  value: string;
  onChange: (value: string) => void;
  description?: string;
}

/** A select over namespaces or pods: a load error is the server's message, not a crash. */
function ResourceSelect({
  label,
  what,
  attempt,
  value,
  onChange,
  description,
}: ResourceSelectProps) {
  if (attempt.status === 'error') {
    return (
      <Stack gap={2}>
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <Text size="sm" c="red" role="alert">
          Could not list {what}: {attempt.message}
        </Text>
      </Stack>
    );
  }
  const items = attempt.status === 'success' ? attempt.data : [];
  const placeholder =
    attempt.status === 'loading'
      ? `Loading ${what}…`
      : items.length === 0
        ? `No ${what} you may see`
        : `Pick one of ${items.length}`;
  return (
    <Select
      label={label}
      data={items.map((item) => item.name)}
      value={value || null}
      onChange={(next) => next !== null && onChange(next)}
      placeholder={placeholder}
      description={description}
      disabled={items.length === 0}
      searchable
      allowDeselect={false}
      nothingFoundMessage={`No such ${label.toLowerCase()}`}
      comboboxProps={{ withinPortal: false }}
    />
  );
}
