import { useRef, useState } from 'react';
import { saveProblemOf, type SaveProblem } from './saveProblem';

interface Options {
  initial: string;
  mode: 'create' | 'edit';
  /** Saves the text; a rejection becomes the problem shown under the editor. */
  save: (text: string) => Promise<void>;
  /** After a conflict (409): the stored YAML, to start again from. */
  reload: () => Promise<string>;
  onSaved: () => void;
  /** Told of every text the editor is (re)mounted with, and of every edit. */
  onText?: (text: string) => void;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The state of a YAML resource editor (roles, connectors): the text being edited, why the last
 * save failed, and the reload that follows a concurrent edit. The editor owns the text; a reload
 * mounts it again (`loaded.version`) with the stored YAML.
 */
export function useYamlSave({ initial, mode, save, reload, onSaved, onText }: Options) {
  const [loaded, setLoaded] = useState({ text: initial, version: 0 });
  const text = useRef(initial);
  const [problem, setProblem] = useState<SaveProblem>();
  const [busy, setBusy] = useState(false);
  const [reloading, setReloading] = useState(false);
  const [reloadError, setReloadError] = useState<string>();
  // Whether the text differs from what the editor was (re)mounted with: unsaved edits.
  const [dirty, setDirty] = useState(false);

  const runSave = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      await save(text.current);
    } catch (err) {
      setProblem(saveProblemOf(err, mode));
      setBusy(false);
      return;
    }
    onSaved();
  };

  const runReload = async () => {
    if (mode !== 'edit') return;
    setReloading(true);
    setReloadError(undefined);
    try {
      const latest = await reload();
      text.current = latest;
      onText?.(latest);
      setLoaded((l) => ({ text: latest, version: l.version + 1 }));
      setDirty(false);
      setProblem(undefined);
    } catch (err) {
      setReloadError(messageOf(err));
    } finally {
      setReloading(false);
    }
  };

  return {
    loaded,
    problem,
    busy,
    dirty,
    save: () => void runSave(),
    edited: (value: string) => {
      text.current = value;
      setDirty(value !== loaded.text);
      onText?.(value);
    },
    reload: { run: () => void runReload(), busy: reloading, error: reloadError },
  };
}
