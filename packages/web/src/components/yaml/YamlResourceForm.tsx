import { Button, Group, Stack } from '@mantine/core';
import { lazy, Suspense, useRef, type ReactNode } from 'react';
import { PageLoader } from '../PageLoader';
import { SaveProblemAlert } from './SaveProblemAlert';
import type { useYamlSave } from './useYamlSave';
import type { YamlEditorHandle } from './YamlEditor';

// CodeMirror loads with the editor, not with the lists that open it.
const YamlEditor = lazy(() => import('./YamlEditor'));
const noIssues: [] = [];

interface Props {
  /** The editor's accessible name, e.g. 'Role YAML'. */
  label: string;
  /** What is being saved, in lower case: 'role', 'connector'. */
  noun: string;
  state: ReturnType<typeof useYamlSave>;
  onCancel: () => void;
  /** Shown above the editor (a guide, a note). */
  children?: ReactNode;
}

/**
 * The body of a YAML resource drawer: the editor (errors marked at their lines), why a save
 * failed, and Cancel/Save. The state is useYamlSave's.
 */
export function YamlResourceForm({ label, noun, state, onCancel, children }: Props) {
  const editor = useRef<YamlEditorHandle>(null);
  const { loaded, problem, busy, save, edited, reload } = state;
  return (
    <Stack gap="md" style={{ flex: 1, minHeight: 0 }}>
      {children}
      <div style={{ flex: 1, minHeight: 200 }}>
        <Suspense fallback={<PageLoader label="Loading the editor" />}>
          <YamlEditor
            key={loaded.version}
            ref={editor}
            initialValue={loaded.text}
            onChange={edited}
            issues={problem?.kind === 'issues' ? problem.issues : noIssues}
            label={label}
          />
        </Suspense>
      </div>
      <SaveProblemAlert
        problem={problem}
        noun={noun}
        onGoToLine={(line) => editor.current?.goToLine(line)}
        reload={reload}
      />
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button loading={busy} onClick={save}>
          Save
        </Button>
      </Group>
    </Stack>
  );
}
