import type { IssuedBotToken } from '@postern/contracts';
import { Button, Checkbox, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { formatDateTime, parseTimestamp } from '../../lib/format';
import type { ProxyAddress } from '../nodes/NodesView';
import { botJoinCommand } from './joinCommand';

/** How a bot's copies join, as the page just learned: a token shown once, or CI jobs' ID tokens. */
export type IssuedJoin =
  | {
      bot: string;
      /** Set when the bot was just created (its first token). */
      created: boolean;
      token: IssuedBotToken;
    }
  | { bot: string; created: true; ciAudience: string };

interface Props {
  issued: IssuedJoin | null;
  proxy: ProxyAddress;
  onClose: () => void;
}

/** The command to run where the bot runs: with a token (shown once, only its hash is kept), or in a CI job. */
export function JoinTokenDialog({ issued, proxy, onClose }: Props) {
  const title = issued && 'ciAudience' in issued ? 'Join from a CI job' : 'Join token';
  return (
    <Modal opened={issued !== null} onClose={onClose} title={title} size="xl" centered>
      {issued && <JoinBody issued={issued} proxy={proxy} onClose={onClose} />}
    </Modal>
  );
}

function JoinBody({ issued, proxy, onClose }: Props & { issued: IssuedJoin }) {
  const [selfSigned, setSelfSigned] = useState(false);
  const ci = 'ciAudience' in issued;
  const command = botJoinCommand({
    join: ci ? { bot: issued.bot } : { token: issued.token.token },
    proxy,
    selfSigned,
  });
  return (
    <Stack gap="md">
      {ci ? (
        <CiIntro bot={issued.bot} audience={issued.ciAudience} />
      ) : (
        <TokenIntro issued={issued} />
      )}
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
        {ci
          ? 'Then ssh -F ./postern-bot/ssh_config reaches servers as the bot. docs/bots.md shows the GitHub Actions and GitLab CI steps.'
          : 'It keeps the certificate fresh until stopped; add --oneshot in a CI job. Then ssh -F /var/lib/postern-bot/ssh_config reaches servers as the bot.'}
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

function TokenIntro({ issued }: { issued: Extract<IssuedJoin, { token: IssuedBotToken }> }) {
  const expires = parseTimestamp(issued.token.expires);
  return (
    <Text>
      {issued.created ? 'Bot ' : 'A new join token for bot '}
      <strong>{issued.bot}</strong>
      {issued.created ? ' was created.' : '.'} The token works once, until{' '}
      {expires ? formatDateTime(expires) : issued.token.expires}, and is shown only now. On the
      bot&apos;s host, run:
    </Text>
  );
}

function CiIntro({ bot, audience }: { bot: string; audience: string }) {
  return (
    <Text>
      Bot <strong>{bot}</strong> was created. A CI job whose ID token matches its rule joins with no
      secret: the job asks its CI system for an ID token for the audience{' '}
      <strong>{audience}</strong>, puts it in POSTERN_ID_TOKEN, and runs:
    </Text>
  );
}
