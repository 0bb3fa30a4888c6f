import { useClientConfig } from '../../app/clientConfig';
import { SettingsView } from './SettingsView';
import { useConsoleSettings } from './useConsoleSettings';

/** `/web/settings`: the console's own settings, kept in this browser. */
export function SettingsPage() {
  const { ui, loc } = useClientConfig();
  const { values, change, restoreDefaults } = useConsoleSettings();
  return (
    <SettingsView
      values={values}
      defaultScrollback={ui.scrollbackLines}
      defaultDateTimeFormat={loc.dateTimeFormat}
      onChange={change}
      onRestoreDefaults={restoreDefaults}
    />
  );
}
