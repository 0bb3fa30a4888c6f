import { Text } from '@mantine/core';
import { secretPlaceholder } from '@postern/contracts';
import { NavigationBlocker } from '../../app/NavigationBlocker';
import { EditorDrawer } from '../../components/yaml/EditorDrawer';
import { useYamlSave } from '../../components/yaml/useYamlSave';
import { YamlResourceForm } from '../../components/yaml/YamlResourceForm';
import { hidesSecrets } from '../connectors/connectorYaml';
import { TrustedClusterGuide } from './TrustedClusterGuide';
import { newTrustedClusterTemplate } from './trustedClusterTemplate';

export type TrustedClusterEditorTarget =
  { mode: 'create' } | { mode: 'edit'; name: string; content: string };

export interface TrustedClusterEditorProps {
  /** The drawer is open while there is a target. */
  target: TrustedClusterEditorTarget | null;
  onClose: () => void;
  /** Saves; rejects with the server's ApiError. */
  onSave: (target: TrustedClusterEditorTarget, content: string) => Promise<void>;
  /** The trusted cluster's YAML as stored now. */
  onReload: (name: string) => Promise<string>;
}

export const trustedClusterEditorTitle = (target: TrustedClusterEditorTarget) =>
  target.mode === 'create' ? 'Connect to a root cluster' : `Edit trusted cluster ${target.name}`;

/** Create or edit a trusted cluster's YAML in a full-width drawer, with the setup guide. */
export function TrustedClusterEditor({
  target,
  onClose,
  onSave,
  onReload,
}: TrustedClusterEditorProps) {
  return (
    <EditorDrawer
      opened={target !== null}
      onClose={onClose}
      title={target ? trustedClusterEditorTitle(target) : ''}
    >
      {target && (
        <EditorBody
          key={target.mode === 'edit' ? `edit:${target.name}` : 'create'}
          target={target}
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
  onClose,
  onSave,
  onReload,
}: Omit<TrustedClusterEditorProps, 'target'> & { target: TrustedClusterEditorTarget }) {
  const initial = target.mode === 'edit' ? target.content : newTrustedClusterTemplate;
  const state = useYamlSave({
    initial,
    mode: target.mode,
    save: (text) => onSave(target, text),
    reload: () => (target.mode === 'edit' ? onReload(target.name) : Promise.resolve('')),
    onSaved: onClose,
  });

  return (
    <>
      <NavigationBlocker when={state.dirty && !state.busy} />
      <YamlResourceForm
        label="Trusted cluster YAML"
        noun="trusted cluster"
        state={state}
        onCancel={onClose}
      >
        <TrustedClusterGuide />
        {hidesSecrets(initial) && (
          <Text size="sm" c="dimmed">
            The token shows as <code>{secretPlaceholder}</code>: the server never sends it back.
            Keep the placeholder to keep the stored token, or paste a new one to replace it.
          </Text>
        )}
      </YamlResourceForm>
    </>
  );
}
