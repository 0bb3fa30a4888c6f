import { Alert, Text } from '@mantine/core';

/**
 * What went wrong, as the server said it: a red alert that assistive technology announces
 * (`role="alert"`), its message wrapped anywhere so a long name or URL cannot widen the page,
 * and its own line breaks kept (a refusal may list one problem a line).
 */
export function FailureAlert({ title, message }: { title: string; message: string }) {
  return (
    <Alert color="red" role="alert" title={title}>
      <Text size="sm" style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-line' }}>
        {message}
      </Text>
    </Alert>
  );
}
