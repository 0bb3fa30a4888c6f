import { NavigationBlocker } from '../../app/NavigationBlocker';
import { EditorDrawer } from '../../components/yaml/EditorDrawer';
import { useYamlSave } from '../../components/yaml/useYamlSave';
import { YamlResourceForm } from '../../components/yaml/YamlResourceForm';
import { newRoleTemplate } from './roleTemplate';

export type RoleEditorTarget = { mode: 'create' } | { mode: 'edit'; name: string; content: string };

export interface RoleEditorProps {
  /** The drawer is open while there is a target. */
  target: RoleEditorTarget | null;
  onClose: () => void;
  /** Saves; rejects with the server's ApiError. */
  onSave: (target: RoleEditorTarget, content: string) => Promise<void>;
  /** The role's YAML as stored now. */
  onReload: (name: string) => Promise<string>;
}

export const roleEditorTitle = (target: RoleEditorTarget) =>
  target.mode === 'create' ? 'Create role' : `Edit role ${target.name}`;

/** Create or edit a role's YAML in a full-width drawer. */
export function RoleEditor({ target, onClose, onSave, onReload }: RoleEditorProps) {
  return (
    <EditorDrawer
      opened={target !== null}
      onClose={onClose}
      title={target ? roleEditorTitle(target) : ''}
    >
      {target && (
        <RoleEditorBody
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

function RoleEditorBody({
  target,
  onClose,
  onSave,
  onReload,
}: Omit<RoleEditorProps, 'target'> & { target: RoleEditorTarget }) {
  const state = useYamlSave({
    initial: target.mode === 'edit' ? target.content : newRoleTemplate,
    mode: target.mode,
    save: (text) => onSave(target, text),
    reload: () => (target.mode === 'edit' ? onReload(target.name) : Promise.resolve('')),
    onSaved: onClose,
  });

  return (
    <>
      <NavigationBlocker when={state.dirty && !state.busy} />
      <YamlResourceForm label="Role YAML" noun="role" state={state} onCancel={onClose} />
    </>
  );
}
