import { ActionIcon, Badge, SegmentedControl, Select, Text } from '@mantine/core';
import {
  includedResourceModes,
  type IncludedResourceMode,
  type ResourcesTab,
} from '@postern/contracts';
import { IconPin, IconPinFilled } from '@tabler/icons-react';
import { EmptyStateCard } from '../../components/EmptyStateCard';

/** All resources, or only the pinned ones. */
export function ResourcesTabs(props: { tab: ResourcesTab; onChange: (tab: ResourcesTab) => void }) {
  return (
    <SegmentedControl
      aria-label="Show"
      value={props.tab}
      onChange={(value) => props.onChange(value as ResourcesTab)}
      data={[
        { label: 'All', value: 'all' },
        { label: 'Pinned', value: 'pinned' },
      ]}
    />
  );
}

const modeLabels: Record<IncludedResourceMode, string> = {
  accessible: 'Resources I can access',
  all: 'Accessible and requestable',
  requestable: 'Requestable only',
};

/** Which resources the list includes, for a user whose roles may request resources. */
export function IncludedModeSelect(props: {
  mode: IncludedResourceMode;
  onChange: (mode: IncludedResourceMode) => void;
}) {
  return (
    <Select
      aria-label="Include"
      w={230}
      allowDeselect={false}
      value={props.mode}
      onChange={(value) => value && props.onChange(value as IncludedResourceMode)}
      data={includedResourceModes.map((mode) => ({ value: mode, label: modeLabels[mode] }))}
    />
  );
}

/** The row's pin: pressed when pinned. */
export function PinButton(props: { name: string; pinned: boolean; onToggle: () => void }) {
  const { name, pinned, onToggle } = props;
  const Icon = pinned ? IconPinFilled : IconPin;
  return (
    <ActionIcon
      variant="subtle"
      color={pinned ? 'blue' : 'gray'}
      aria-label={`${pinned ? 'Unpin' : 'Pin'} ${name}`}
      aria-pressed={pinned}
      onClick={onToggle}
    >
      <Icon size={16} aria-hidden="true" />
    </ActionIcon>
  );
}

/** In place of Connect on a resource the user reaches only through an approved request. */
export function RequiresRequestBadge() {
  return (
    <Badge variant="light" color="yellow" tt="none">
      Requires request
    </Badge>
  );
}

/** The Pinned tab with nothing pinned. */
export function NoPins() {
  return (
    <EmptyStateCard id="no-pins-title" title="Nothing pinned yet">
      <Text size="sm">
        Pin the resources you use most with the pin on their row in All. They show here, in every
        browser you sign in to.
      </Text>
    </EmptyStateCard>
  );
}
