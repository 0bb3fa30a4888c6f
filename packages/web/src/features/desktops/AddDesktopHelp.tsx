import { Card, Code, Stack, Text, Title } from '@mantine/core';

const exampleDesktop = `kind: desktop
version: v3
metadata:
  name: build-box
  description: CI build desktop
  labels:
    env: dev
spec:
  addr: 10.0.0.5:5900
  protocol: vnc
  os: Linux
  vnc_password: …the VNC server's password…`;

const agentCommand =
  'postern agent --proxy HOST:3080 --token <token> --desktop NAME=vnc://host:5900';

/** The empty state: how a desktop joins. */
export function AddDesktopHelp() {
  return (
    <Card withBorder padding="lg" aria-labelledby="add-desktop-title" component="section">
      <Stack gap="sm">
        <Title order={3} id="add-desktop-title">
          No desktops yet
        </Title>
        <Text size="sm">
          A desktop appears here once the proxy knows it. Describe its VNC server in a file and
          create it (the password stays with the proxy: browsers never see it):
        </Text>
        <Code block>{exampleDesktop}</Code>
        <Code block>postern create -f desktop.yaml</Code>
        <Text size="sm">
          Or list it under <Code>desktops:</Code> in the proxy&apos;s config file.
        </Text>
        <Text size="sm">
          A desktop only reachable from inside its own network joins through an agent there:
        </Text>
        <Code block>{agentCommand}</Code>
      </Stack>
    </Card>
  );
}
