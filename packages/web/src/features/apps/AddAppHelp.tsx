import { Code, List, Text } from '@mantine/core';
import { AddResourceHelp } from '../../components/connect/AddResourceHelp';

const exampleApp = `kind: app
version: v3
metadata:
  name: grafana
  description: Dashboards
  labels:
    env: prod
spec:
  uri: http://localhost:3000
  public_addr: grafana.example.com`;

/** The empty state: how an application joins the cluster. */
export function AddAppHelp({ proxyHost }: { proxyHost: string }) {
  return (
    <AddResourceHelp
      id="add-app-title"
      title="No applications yet"
      intro={
        <Text size="sm">
          An application appears here once the proxy knows it. Describe it in a file and create it,
          or list it under <Code>apps:</Code> in the proxy&apos;s config file (the same fields,
          flat):
        </Text>
      }
      example={exampleApp}
      file="app.yaml"
    >
      <List spacing="xs" size="sm">
        <List.Item>
          <Text size="sm" span fw={600}>
            HTTP applications
          </Text>{' '}
          (<Code>http://</Code> or <Code>https://</Code> in <Code>uri</Code>) open in the browser
          with Launch, and to scripts and <Code>curl</Code> through{' '}
          <Code>postern proxy app &lt;name&gt;</Code>. Without <Code>public_addr</Code> one is
          served at <Code>{`<name>.${proxyHost}`}</Code>.
        </List.Item>
        <List.Item>
          <Text size="sm" span fw={600}>
            TCP applications
          </Text>{' '}
          (<Code>tcp://host:port</Code> in <Code>uri</Code>) are reached with{' '}
          <Code>postern proxy app &lt;name&gt;</Code>.
        </List.Item>
      </List>
    </AddResourceHelp>
  );
}
