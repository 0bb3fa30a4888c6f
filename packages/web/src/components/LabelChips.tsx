import { Badge, CloseButton, Group, UnstyledButton } from '@mantine/core';

export interface Label {
  name: string;
  value: string;
}

export const labelText = (label: Label) => `${label.name}: ${label.value}`;

/**
 * A resource's labels as chips. With `onSelect`, each chip is a button (clicking a label adds it
 * to the list's filter, reference §1.5).
 */
export function LabelChips({
  labels,
  onSelect,
}: {
  labels: Label[];
  onSelect?: (label: Label) => void;
}) {
  if (labels.length === 0) return null;
  return (
    <Group gap={4}>
      {labels.map((label) =>
        onSelect ? (
          <UnstyledButton
            key={`${label.name}=${label.value}`}
            onClick={() => onSelect(label)}
            title={`Filter by ${labelText(label)}`}
          >
            <Badge variant="light" color="gray" tt="none" style={{ cursor: 'pointer' }}>
              {labelText(label)}
            </Badge>
          </UnstyledButton>
        ) : (
          <Badge key={`${label.name}=${label.value}`} variant="light" color="gray" tt="none">
            {labelText(label)}
          </Badge>
        ),
      )}
    </Group>
  );
}

/** The labels a list is filtered by, each removable. */
export function FilterChips({
  labels,
  onRemove,
  onClear,
}: {
  labels: Label[];
  onRemove: (label: Label) => void;
  onClear?: () => void;
}) {
  if (labels.length === 0) return null;
  return (
    <Group gap={6} role="list" aria-label="Label filters">
      {labels.map((label) => (
        <Badge
          key={`${label.name}=${label.value}`}
          role="listitem"
          variant="filled"
          tt="none"
          pr={2}
          rightSection={
            <CloseButton
              size="xs"
              variant="transparent"
              c="inherit"
              aria-label={`Remove filter ${labelText(label)}`}
              onClick={() => onRemove(label)}
            />
          }
        >
          {labelText(label)}
        </Badge>
      ))}
      {onClear && labels.length > 1 && (
        <UnstyledButton fz="xs" c="dimmed" onClick={onClear}>
          Clear filters
        </UnstyledButton>
      )}
    </Group>
  );
}
