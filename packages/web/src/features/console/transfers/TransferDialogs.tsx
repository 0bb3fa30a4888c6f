import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';

interface UploadProps {
  opened: boolean;
  onClose: () => void;
  onUpload: (files: File[], directory: string) => void;
}

/** Pick files and the directory they go to (the login's home, `~`, unless changed). */
export function UploadDialog({ opened, onClose, onUpload }: UploadProps) {
  const [files, setFiles] = useState<File[]>([]);
  const [directory, setDirectory] = useState('~');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (files.length === 0 || !directory.trim()) return;
    onUpload(files, directory.trim());
    setFiles([]);
    onClose();
  };
  return (
    <Modal opened={opened} onClose={onClose} title="Upload files">
      <form onSubmit={submit}>
        <Stack gap="sm">
          <div>
            <Text component="label" htmlFor="upload-files" size="sm" fw={500}>
              Files
            </Text>
            <input
              id="upload-files"
              type="file"
              multiple
              style={{ display: 'block', marginTop: 4 }}
              onChange={(event) => setFiles(Array.from(event.currentTarget.files ?? []))}
            />
          </div>
          <TextInput
            label="Destination directory"
            description="On the server; ~ is the login's home directory"
            value={directory}
            onChange={(event) => setDirectory(event.currentTarget.value)}
            required
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Close
            </Button>
            <Button type="submit" disabled={files.length === 0 || !directory.trim()}>
              Upload
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

interface DownloadProps {
  opened: boolean;
  onClose: () => void;
  onDownload: (remotePath: string) => void;
}

/** Name a file on the server; a relative path starts at the login's home directory. */
export function DownloadDialog({ opened, onClose, onDownload }: DownloadProps) {
  const [remotePath, setRemotePath] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!remotePath.trim()) return;
    onDownload(remotePath.trim());
    onClose();
  };
  return (
    <Modal opened={opened} onClose={onClose} title="Download file">
      <form onSubmit={submit}>
        <Stack gap="sm">
          <TextInput
            label="File path"
            description="On the server, e.g. /var/log/syslog or notes.txt (from the home directory)"
            placeholder="/path/to/file"
            value={remotePath}
            onChange={(event) => setRemotePath(event.currentTarget.value)}
            data-autofocus
            required
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Close
            </Button>
            <Button type="submit" disabled={!remotePath.trim()}>
              Download
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
