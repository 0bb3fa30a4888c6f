import { Code, Text } from '@mantine/core';
import { AddResourceHelp } from '../../components/connect/AddResourceHelp';

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
    <AddResourceHelp
      id="add-desktop-title"
      title="No desktops yet"
      intro={
        <Text size="sm">
          A desktop appears here once the proxy knows it. Describe its VNC server in a file and
          create it (the password stays with the proxy: browsers never see it):
        </Text>
      }
      example={exampleDesktop}
      file="desktop.yaml"
    >
      <Text size="sm">
        Or list it under <Code>desktops:</Code> in the proxy&apos;s config file.
      </Text>
      <Text size="sm">
        A desktop only reachable from inside its own network joins through an agent there:
      </Text>
      <Code block>{agentCommand}</Code>
    </AddResourceHelp>
  );
}
