import { Alert, Anchor, Stack, Text } from '@mantine/core';
import { alertLevel, alertLinkLabel, type ClusterAlert } from '@postern/contracts';

const colors = { info: 'blue', warning: 'yellow', danger: 'red' } as const;

interface Props {
  alerts: readonly ClusterAlert[];
  onDismiss: (name: string) => void;
}

/** The cluster's alerts above every page: the most severe first, each one closable. */
export function ClusterAlertBanners({ alerts, onDismiss }: Props) {
  if (alerts.length === 0) return null;
  return (
    <Stack gap="xs" mb="md" component="section" aria-label="Cluster alerts">
      {alerts.map((alert) => {
        const level = alertLevel(alert.spec.severity);
        const link = alert.metadata.labels[alertLinkLabel];
        return (
          <Alert
            key={alert.metadata.name}
            color={colors[level]}
            variant="light"
            role={level === 'danger' ? 'alert' : 'status'}
            withCloseButton
            closeButtonLabel="Dismiss alert"
            onClose={() => onDismiss(alert.metadata.name)}
            py="xs"
          >
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {alert.spec.message}
              {link && (
                <>
                  {' '}
                  <Anchor href={link} target="_blank" rel="noopener noreferrer" size="sm">
                    More
                  </Anchor>
                </>
              )}
            </Text>
          </Alert>
        );
      })}
    </Stack>
  );
}
