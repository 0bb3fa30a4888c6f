import { Card, Code, Stack, Text, Title } from '@mantine/core';

const exampleCluster = `kind: kube_cluster
version: v3
metadata:
  name: prod
  description: Production
  labels:
    env: prod
spec:
  server: https://k8s.internal:6443
  ca_cert: |
    -----BEGIN CERTIFICATE-----
    …the API server's CA…
    -----END CERTIFICATE-----
  credentials:
    token: …a service account token that may impersonate users and groups…`;

const agentCommand =
  'postern agent --proxy HOST:3080 --token <token> --kube NAME --kubeconfig FILE';

/** The empty state: how a Kubernetes cluster joins. */
export function AddKubeClusterHelp() {
  return (
    <Card withBorder padding="lg" aria-labelledby="add-kube-title" component="section">
      <Stack gap="sm">
        <Title order={3} id="add-kube-title">
          No Kubernetes clusters yet
        </Title>
        <Text size="sm">
          A cluster appears here once the proxy knows it. Describe its API server in a file and
          create it:
        </Text>
        <Code block>{exampleCluster}</Code>
        <Code block>postern create -f kube.yaml</Code>
        <Text size="sm">
          Or list it under <Code>kubernetes_clusters:</Code> in the proxy&apos;s config file (with{' '}
          <Code>ca_cert_file</Code> naming the CA&apos;s PEM file, or <Code>kubeconfig</Code> naming
          a kubeconfig on the proxy&apos;s host).
        </Text>
        <Text size="sm">
          A cluster only reachable from inside its own network joins through an agent there, which
          keeps the kubeconfig to itself:
        </Text>
        <Code block>{agentCommand}</Code>
      </Stack>
    </Card>
  );
}
