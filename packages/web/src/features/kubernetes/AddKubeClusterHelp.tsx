import { Code, Text } from '@mantine/core';
import { AddResourceHelp } from '../../components/connect/AddResourceHelp';

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
    <AddResourceHelp
      id="add-kube-title"
      title="No Kubernetes clusters yet"
      intro={
        <Text size="sm">
          A cluster appears here once the proxy knows it. Describe its API server in a file and
          create it:
        </Text>
      }
      example={exampleCluster}
      file="kube.yaml"
    >
      <Text size="sm">
        Or list it under <Code>kubernetes_clusters:</Code> in the proxy&apos;s config file (with{' '}
        <Code>ca_cert_file</Code> naming the CA&apos;s PEM file, or <Code>kubeconfig</Code> naming a
        kubeconfig on the proxy&apos;s host).
      </Text>
      <Text size="sm">
        A cluster only reachable from inside its own network joins through an agent there, which
        keeps the kubeconfig to itself:
      </Text>
      <Code block>{agentCommand}</Code>
    </AddResourceHelp>
  );
}
