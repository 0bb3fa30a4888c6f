import { Text } from '@mantine/core';
import { secretPlaceholder, type ConnectorKind } from '@postern/contracts';
import { useState } from 'react';
import { NavigationBlocker } from '../../app/NavigationBlocker';
import { connectorKindLabels } from '../../components/ConnectorKindIcon';
import { EditorDrawer } from '../../components/yaml/EditorDrawer';
import { useYamlSave } from '../../components/yaml/useYamlSave';
import { YamlResourceForm } from '../../components/yaml/YamlResourceForm';
import { ConnectorGuide } from './ConnectorGuide';
import { connectorNameIn, hidesSecrets } from './connectorYaml';
import { connectorTemplate } from './templates';

export type ConnectorEditorTarget =
  | { mode: 'create'; kind: ConnectorKind }
  | { mode: 'edit'; kind: ConnectorKind; name: string; content: string };

export interface ConnectorEditorProps {
  /** The drawer is open while there is a target. */
  target: ConnectorEditorTarget | null;
  /** This proxy's origin, for the template's URLs and the guide. */
  origin: string;
  onClose: () => void;
  /** Saves; rejects with the server's ApiError. */
  onSave: (target: ConnectorEditorTarget, content: string) => Promise<void>;
  /** The connector's YAML as stored now. */
  onReload: (kind: ConnectorKind, name: string) => Promise<string>;
}

export const connectorEditorTitle = (target: ConnectorEditorTarget) =>
  target.mode === 'create'
    ? `New ${connectorKindLabels[target.kind]} connector`
    : `Edit ${connectorKindLabels[target.kind]} connector ${target.name}`;

/** Create or edit a connector's YAML in a full-width drawer, with the provider guide. */
export function ConnectorEditor({
  target,
  origin,
  onClose,
  onSave,
  onReload,
}: ConnectorEditorProps) {
  return (
    <EditorDrawer
      opened={target !== null}
      onClose={onClose}
      title={target ? connectorEditorTitle(target) : ''}
    >
      {target && (
        <EditorBody
          key={target.mode === 'edit' ? `edit:${target.kind}:${target.name}` : `new:${target.kind}`}
          target={target}
          origin={origin}
          onClose={onClose}
          onSave={onSave}
          onReload={onReload}
        />
      )}
    </EditorDrawer>
  );
}

function EditorBody({
  target,
  origin,
  onClose,
  onSave,
  onReload,
}: Omit<ConnectorEditorProps, 'target'> & { target: ConnectorEditorTarget }) {
  const [initial] = useState(() =>
    target.mode === 'edit' ? target.content : connectorTemplate[target.kind](origin),
  );
  // The guide's SAML URLs follow the name as it is typed.
  const [name, setName] = useState(() => connectorNameIn(initial));
  const state = useYamlSave({
    initial,
    mode: target.mode,
    save: (text) => onSave(target, text),
    reload: () =>
      target.mode === 'edit' ? onReload(target.kind, target.name) : Promise.resolve(''),
    onSaved: onClose,
    onText: (text) => setName(connectorNameIn(text)),
  });

  return (
    <>
      <NavigationBlocker when={state.dirty && !state.busy} />
      <YamlResourceForm label="Connector YAML" noun="connector" state={state} onCancel={onClose}>
        <ConnectorGuide kind={target.kind} name={name} origin={origin} />
        {hidesSecrets(initial) && (
          <Text size="sm" c="dimmed">
            Secrets show as <code>{secretPlaceholder}</code>: the server never sends them back. Keep
            the placeholder to keep the stored secret, or replace it to change the secret.
          </Text>
        )}
      </YamlResourceForm>
    </>
  );
}
