import { useClientConfig } from '../../app/clientConfig';
import { SettingsView } from './SettingsView';
import { useConsoleSettings } from './useConsoleSettings';

/** `/web/settings`: the console's own settings, kept in this browser. */
export function SettingsPage() {
  const { ui } = useClientConfig();
  const { values, change, restoreDefaults } = useConsoleSettings();
  return (
    <SettingsView
      values={values}
      defaultScrollback={ui.scrollbackLines}
      onChange={change}
      onRestoreDefaults={restoreDefaults}
    />
  );
}
