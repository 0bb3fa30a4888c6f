import { Button, Drawer, Group, Stack } from '@mantine/core';
import { lazy, Suspense, useRef, useState } from 'react';
import { PageLoader } from '../../components/PageLoader';
import { saveProblemOf, type SaveProblem } from '../../components/yaml/saveProblem';
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

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

function RoleEditorBody({
  target,
  onClose,
  onSave,
  onReload,
}: Omit<RoleEditorProps, 'target'> & { target: RoleEditorTarget }) {
  const initial = target.mode === 'edit' ? target.content : newRoleTemplate;
  // The editor owns the text; a reload mounts it again with the stored YAML.
  const [loaded, setLoaded] = useState({ text: initial, version: 0 });
  const text = useRef(initial);
  const editor = useRef<YamlEditorHandle>(null);
  const [problem, setProblem] = useState<SaveProblem>();
  const [busy, setBusy] = useState(false);
  const [reloading, setReloading] = useState(false);
  const [reloadError, setReloadError] = useState<string>();

  const save = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      await onSave(target, text.current);
    } catch (err) {
      setProblem(saveProblemOf(err, target.mode));
      setBusy(false);
      return;
    }
    onClose();
  };

  const reload = async () => {
    if (target.mode !== 'edit') return;
    setReloading(true);
    setReloadError(undefined);
    try {
      const latest = await onReload(target.name);
      text.current = latest;
      setLoaded((l) => ({ text: latest, version: l.version + 1 }));
      setProblem(undefined);
    } catch (err) {
      setReloadError(messageOf(err));
    } finally {
      setReloading(false);
    }
  };

  const issues = problem?.kind === 'issues' ? problem.issues : noIssues;

  return (
    <Stack gap="md" style={{ flex: 1, minHeight: 0 }}>
      <div style={{ flex: 1, minHeight: 200 }}>
        <Suspense fallback={<PageLoader label="Loading the editor" />}>
          <YamlEditor
            key={loaded.version}
            ref={editor}
            initialValue={loaded.text}
            onChange={(value) => {
              text.current = value;
            }}
            issues={issues}
            label="Role YAML"
          />
        </Suspense>
      </div>
      <SaveProblemAlert
        problem={problem}
        noun="role"
        onGoToLine={(line) => editor.current?.goToLine(line)}
        reload={{ run: () => void reload(), busy: reloading, error: reloadError }}
      />
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button loading={busy} onClick={() => void save()}>
          Save
        </Button>
      </Group>
    </Stack>
  );
}

const noIssues: [] = [];
