import type { BotJson } from '@postern/contracts';
import { Button, Code, Modal, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import { formatDateTime, parseTimestamp } from '../../lib/format';

type Instance = BotJson['instances'][number];
type Token = BotJson['tokens'][number];

const when = (value: string) => {
  const date = parseTimestamp(value);
  return date ? formatDateTime(date) : value;
};

const instanceColumns: Column<Instance>[] = [
  { key: 'id', header: 'Instance', render: (i) => <Code>{i.id}</Code> },
  { key: 'generation', header: 'Generation', fit: true },
  { key: 'joinedAt', header: 'Joined', render: (i) => when(i.joinedAt) },
  { key: 'renewedAt', header: 'Last renewed', render: (i) => when(i.renewedAt) },
  { key: 'certExpires', header: 'Certificate ends', render: (i) => when(i.certExpires) },
  { key: 'addr', header: 'From', render: (i) => i.addr ?? '' },
];

/** Create New Lock with this instance named: its certificates stop working, the others go on. */
const lockLink = (id: string) =>
  `${routePath('newLock')}?${new URLSearchParams({ kind: 'bot_instance', name: id })}`;

const lockColumn: Column<Instance> = {
  key: 'lock',
  header: '',
  fit: true,
  render: (i) => (
    <Button
      size="compact-sm"
      variant="default"
      color="red"
      component={Link}
      to={lockLink(i.id)}
      aria-label={`Lock instance ${i.id}`}
    >
      Lock
    </Button>
  ),
};

const tokenColumns: Column<Token>[] = [
  { key: 'hint', header: 'Token', render: (t) => <Code>…{t.hint}</Code> },
  { key: 'expires', header: 'Expires', render: (t) => when(t.expires) },
];

/**
 * A bot's running copies (each joined once and renewing since; the generation counts renewals),
 * its unused join tokens, and the CI rule it admits jobs by, if any.
 */
export function BotDetailsDialog({
  bot,
  onClose,
  mayLock = false,
}: {
  bot: BotJson | null;
  onClose: () => void;
  /** The viewer may create locks: each instance offers to lock it alone. */
  mayLock?: boolean;
}) {
  return (
    <Modal
      opened={bot !== null}
      onClose={onClose}
      title={bot ? `Bot ${bot.name}` : ''}
      size="xl"
      centered
    >
      {bot && (
        <Stack gap="md">
          <Title order={4}>Running copies</Title>
          <ResourceTable
            columns={mayLock ? [...instanceColumns, lockColumn] : instanceColumns}
            rows={bot.instances}
            rowKey={(i) => i.id}
            emptyText="No copy has joined yet, or their certificates ran out more than a day ago."
          />
          <Title order={4}>Unused join tokens</Title>
          <ResourceTable
            columns={tokenColumns}
            rows={bot.tokens}
            rowKey={(t) => `${t.hint}-${t.expires}`}
            emptyText="None."
          />
          {bot.oidc && (
            <>
              <Title order={4}>CI jobs that join with their ID token</Title>
              <Text size="sm">
                Issuer <Code>{bot.oidc.issuer}</Code>, audience <Code>{bot.oidc.audience}</Code>
                {Object.entries(bot.oidc.claims).map(([claim, value]) => (
                  <span key={claim}>
                    , {claim} <Code>{value}</Code>
                  </span>
                ))}
              </Text>
            </>
          )}
        </Stack>
      )}
    </Modal>
  );
}
