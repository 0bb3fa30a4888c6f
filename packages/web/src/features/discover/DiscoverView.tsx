import {
  Alert,
  Anchor,
  Button,
  Card,
  Checkbox,
  Group,
  Loader,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { Link } from 'react-router';
import { CopyableCommand } from '../../components/connect/CopyableCommand';
import { FailureAlert } from '../../components/FailureAlert';
import { formatDateTime } from '../../lib/format';
import { DatabaseConnectionTest } from './DatabaseConnectionTest';
import { EnrollFields } from './EnrollFields';
import type { EnrollKind } from './enrollKinds';
import { KindPicker } from './KindPicker';
import type { Enrollment } from './useEnroll';

interface Props {
  enrollment: Enrollment;
  /** Where the joined resource is listed, found by its name. */
  listHref: (kind: EnrollKind, name: string) => string;
}

/** Enroll New Resource (spec §2 /web/discover): choose a kind, run one command, see it join. */
export function DiscoverView({ enrollment, listHref }: Props) {
  const { kind } = enrollment;
  return (
    <Stack gap="lg">
      <Title order={2}>Enroll New Resource</Title>
      {kind ? (
        <EnrollSteps enrollment={enrollment} kind={kind} listHref={listHref} />
      ) : (
        <>
          <Text size="sm">
            Choose what to add. Each joins with a short-lived join token, through a command you run
            on a host that reaches it.
          </Text>
          {!enrollment.mayAdd && (
            <Alert color="orange" title="You cannot add resources">
              Adding one takes a join token, and your roles do not let you create them. Ask an
              admin, or request a role that can.
            </Alert>
          )}
          <KindPicker
            kinds={enrollment.kinds}
            mayAdd={enrollment.mayAdd}
            onChoose={enrollment.choose}
          />
        </>
      )}
    </Stack>
  );
}

function EnrollSteps({ enrollment, kind, listHref }: Props & { kind: EnrollKind }) {
  const { issued } = enrollment;
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="enroll-kind">
      <Stack gap="md">
        <Group justify="space-between">
          <Title order={3} id="enroll-kind">
            {kind.title}
          </Title>
          <Button variant="subtle" onClick={enrollment.restart}>
            Choose another kind
          </Button>
        </Group>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void enrollment.submit();
          }}
        >
          <Stack gap="sm">
            <EnrollFields
              form={kind.form}
              input={enrollment.input}
              errors={enrollment.errors}
              onChange={enrollment.setInput}
            />
            <Checkbox
              label="The proxy uses its self-signed certificate (the default install): have curl and the agent accept it"
              checked={enrollment.selfSigned}
              onChange={(event) => enrollment.setSelfSigned(event.currentTarget.checked)}
            />
            {enrollment.submitError !== undefined && (
              <FailureAlert title="No join token" message={enrollment.submitError} />
            )}
            {!issued && (
              <Group>
                <Button type="submit" loading={enrollment.submitting}>
                  Generate command
                </Button>
              </Group>
            )}
          </Stack>
        </form>
        {issued && (
          <Stack gap="sm">
            <Text size="sm">
              Run this on a host that reaches the {kind.noun}. The join token in it works until{' '}
              {formatDateTime(issued.expiry)}, and only for this.
            </Text>
            <CopyableCommand command={issued.command} label="Enroll command" />
            <JoinStatus enrollment={enrollment} kind={kind} listHref={listHref} />
          </Stack>
        )}
      </Stack>
    </Card>
  );
}

function JoinStatus({ enrollment, kind, listHref }: Props & { kind: EnrollKind }) {
  const { joined, expired, watchError } = enrollment;
  if (!enrollment.watchable) {
    return (
      <Text size="sm" c="dimmed" role="status">
        Your roles do not list {kind.noun}s, so this page cannot show it joining; people whose roles
        do will see it in their list.
      </Text>
    );
  }
  if (joined) {
    return (
      <Stack gap="md">
        <Alert color="teal" title={`${joined} joined`} role="status">
          <Stack gap="xs">
            <Text size="sm">
              The {kind.noun} is enrolled and listed for the people your roles allow.
            </Text>
            <Group>
              <Anchor component={Link} to={listHref(kind, joined)}>
                View it in the list
              </Anchor>
              <Anchor component="button" type="button" onClick={enrollment.restart}>
                Enroll another resource
              </Anchor>
            </Group>
          </Stack>
        </Alert>
        {enrollment.testConnection && <DatabaseConnectionTest onTest={enrollment.testConnection} />}
      </Stack>
    );
  }
  if (expired) {
    return (
      <Alert color="orange" title="The join token expired" role="status">
        Nothing joined with it. Change the form or choose the kind again for a new command.
      </Alert>
    );
  }
  return (
    <Stack gap={4}>
      <Group gap="xs" role="status">
        <Loader size="xs" />
        <Text size="sm">Waiting for the {kind.noun} to join…</Text>
      </Group>
      {watchError !== undefined && (
        <Text size="xs" c="red">
          The last look for it failed ({watchError}); trying again.
        </Text>
      )}
    </Stack>
  );
}
