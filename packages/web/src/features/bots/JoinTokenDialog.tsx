import type { IssuedBotToken } from '@postern/contracts';
import { Button, Checkbox, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { formatDateTime, parseTimestamp } from '../../lib/format';
import type { ProxyAddress } from '../nodes/NodesView';
import { botJoinCommand } from './joinCommand';

export interface IssuedJoin {
  bot: string;
  token: IssuedBotToken;
  /** Set when the bot was just created (its first token). */
  created: boolean;
}

interface Props {
  issued: IssuedJoin | null;
  proxy: ProxyAddress;
  onClose: () => void;
}

/** A join token, shown once (only its hash is kept), as the command to run on the bot's host. */
export function JoinTokenDialog({ issued, proxy, onClose }: Props) {
  return (
    <Modal opened={issued !== null} onClose={onClose} title="Join token" size="xl" centered>
      {issued && <JoinBody issued={issued} proxy={proxy} onClose={onClose} />}
    </Modal>
  );
}

function JoinBody({ issued, proxy, onClose }: Props & { issued: IssuedJoin }) {
  const [selfSigned, setSelfSigned] = useState(false);
  const command = botJoinCommand({ token: issued.token.token, proxy, selfSigned });
  const expires = parseTimestamp(issued.token.expires);
  return (
    <Stack gap="md">
      <Text>
        {issued.created ? 'Bot ' : 'A new join token for bot '}
        <strong>{issued.bot}</strong>
        {issued.created ? ' was created.' : '.'} The token works once, until{' '}
        {expires ? formatDateTime(expires) : issued.token.expires}, and is shown only now. On the
        bot&apos;s host, run:
      </Text>
      <Code
        block
        aria-label="Join command"
        style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}
      >
        {command}
      </Code>
      <Checkbox
        label="The proxy uses its self-signed certificate (the default install): have the bot accept it"
        checked={selfSigned}
        onChange={(event) => setSelfSigned(event.currentTarget.checked)}
      />
      <Text size="sm" c="dimmed">
        It keeps the certificate fresh until stopped; add --oneshot in a CI job. Then ssh -F
        /var/lib/postern-bot/ssh_config reaches servers as the bot.
      </Text>
      <Group justify="flex-end">
        <CopyButton value={command}>
          {({ copied, copy }) => (
            <Button variant="default" onClick={copy}>
              {copied ? 'Copied' : 'Copy command'}
            </Button>
          )}
        </CopyButton>
        <Button onClick={onClose}>Done</Button>
      </Group>
    </Stack>
  );
}
