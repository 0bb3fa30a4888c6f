import { Button, Drawer, Group, Stack } from '@mantine/core';
import { lazy, Suspense, useRef } from 'react';
import { PageLoader } from '../../components/PageLoader';
import { useYamlSave } from '../../components/yaml/useYamlSave';
import { SaveProblemAlert } from '../../components/yaml/SaveProblemAlert';
import { newRoleTemplate } from './roleTemplate';
import type { YamlEditorHandle } from '../../components/yaml/YamlEditor';

// CodeMirror loads with the editor, not with the Roles list.
const YamlEditor = lazy(() => import('../../components/yaml/YamlEditor'));

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
    <Drawer
      opened={target !== null}
      onClose={onClose}
      position="right"
      size="100%"
      title={target ? roleEditorTitle(target) : ''}
      closeOnEscape={false}
      closeButtonProps={{ 'aria-label': 'Close the editor' }}
      // The editor takes the height the messages and buttons leave.
      styles={{
        content: { display: 'flex', flexDirection: 'column' },
        body: { flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' },
      }}
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
    </Drawer>
  );
}

function RoleEditorBody({
  target,
  onClose,
  onSave,
  onReload,
}: Omit<RoleEditorProps, 'target'> & { target: RoleEditorTarget }) {
  const editor = useRef<YamlEditorHandle>(null);
  const { loaded, problem, busy, save, edited, reload } = useYamlSave({
    initial: target.mode === 'edit' ? target.content : newRoleTemplate,
    mode: target.mode,
    save: (text) => onSave(target, text),
    reload: () => (target.mode === 'edit' ? onReload(target.name) : Promise.resolve('')),
    onSaved: onClose,
  });

  const issues = problem?.kind === 'issues' ? problem.issues : noIssues;

  return (
    <Stack gap="md" style={{ flex: 1, minHeight: 0 }}>
      <div style={{ flex: 1, minHeight: 200 }}>
        <Suspense fallback={<PageLoader label="Loading the editor" />}>
          <YamlEditor
            key={loaded.version}
            ref={editor}
            initialValue={loaded.text}
            onChange={edited}
            issues={issues}
            label="Role YAML"
          />
        </Suspense>
      </div>
      <SaveProblemAlert
        problem={problem}
        noun="role"
        onGoToLine={(line) => editor.current?.goToLine(line)}
        reload={reload}
      />
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button loading={busy} onClick={save}>
          Save
        </Button>
      </Group>
    </Stack>
  );
}

const noIssues: [] = [];
