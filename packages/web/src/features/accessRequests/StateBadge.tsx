import { Badge } from '@mantine/core';
import type { AccessRequestState } from '@postern/contracts';
import { stateColors } from './makeRequest';

/** A request's state, coloured: pending yellow, approved green, denied red… */
export function StateBadge({ state }: { state: AccessRequestState }) {
  return (
    <Badge color={stateColors[state]} variant="light">
      {state}
    </Badge>
  );
}
