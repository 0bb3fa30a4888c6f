import { Code, Text } from '@mantine/core';
import { AddResourceHelp } from '../../components/connect/AddResourceHelp';

const exampleDatabase = `kind: db
version: v3
metadata:
  name: orders
  description: Orders (primary)
  labels:
    env: prod
spec:
  protocol: postgres
  uri: db1.internal:5432`;

/** The empty state: how a database joins the cluster. */
export function AddDatabaseHelp() {
  return (
    <AddResourceHelp
      id="add-db-title"
      title="No databases yet"
      intro={
        <Text size="sm">
          A database appears here once the proxy knows it. Describe it in a file and create it, or
          list it under <Code>databases:</Code> in the proxy&apos;s config file:
        </Text>
      }
      example={exampleDatabase}
      file="db.yaml"
    >
      <Text size="sm">
        The database must trust Postern&apos;s database client CA, which{' '}
        <Code>postern db ca export</Code> prints with the lines to add to its configuration.
      </Text>
    </AddResourceHelp>
  );
}
