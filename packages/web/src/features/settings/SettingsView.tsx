import {
  Button,
  Card,
  Group,
  NumberInput,
  SegmentedControl,
  Select,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useId, useState, type ComponentProps } from 'react';
import {
  dateFormats,
  fontSizeLimits,
  scrollbackLimits,
  terminalFonts,
  type DateFormat,
  type TerminalFont,
} from '../../lib/consoleSettings';
import { formatDatePattern } from '../../lib/dateFormat';
import { formatDateTime } from '../../lib/format';
import type { ColorScheme } from '../../theme/constants';
import type { ConsoleSettingsChange, ConsoleSettingsValues } from './useConsoleSettings';

export interface SettingsViewProps {
  values: ConsoleSettingsValues;
  /** The cluster's scrollback (GRV_CONFIG ui.scrollbackLines), used until the user sets one. */
  defaultScrollback: number;
  /** The cluster's date-time format (GRV_CONFIG loc.dateTimeFormat), used until the user picks one. */
  defaultDateTimeFormat: string;
  onChange: (change: ConsoleSettingsChange) => void;
  onRestoreDefaults: () => void;
  /** The moment the date format examples show. */
  now?: Date;
}

/** The date format choice that stores none, so the cluster's loc formats apply. */
const clusterDateChoice = 'default';

const fontChoices = Object.entries(terminalFonts).map(([value, font]) => ({
  value,
  label: font.label,
}));

type NumberSettingProps = Omit<ComponentProps<typeof NumberInput>, 'value' | 'onChange'> & {
  value: number;
  min: number;
  max: number;
  onCommit: (value: number) => void;
};

/**
 * A number setting: the box may be empty or out of range while the user types; only a whole
 * number within limits is stored. A value changed from outside (Restore defaults) shows here.
 */
function NumberSetting({ value, min, max, onCommit, ...rest }: NumberSettingProps) {
  const [draft, setDraft] = useState<number | string>(value);
  const [shown, setShown] = useState(value);
  if (value !== shown) {
    setShown(value);
    setDraft(value);
  }
  return (
    <NumberInput
      {...rest}
      min={min}
      max={max}
      allowDecimal={false}
      allowNegative={false}
      value={draft}
      onChange={(next) => {
        if (typeof next === 'bigint') return; // not with the limits these settings have
        setDraft(next);
        if (typeof next === 'number' && Number.isInteger(next) && next >= min && next <= max) {
          setShown(next);
          onCommit(next);
        }
      }}
    />
  );
}

/**
 * Console Settings (spec §2 /web/settings): the theme, the terminal's font, size and scrollback,
 * and how dates are written. Each change applies at once and stays in this browser.
 */
export function SettingsView({
  values,
  defaultScrollback,
  defaultDateTimeFormat,
  onChange,
  onRestoreDefaults,
  now = new Date(),
}: SettingsViewProps) {
  const themeLabelId = useId();
  const dateChoices = [
    {
      value: clusterDateChoice,
      label: `Default (${formatDatePattern(now, defaultDateTimeFormat)})`,
    },
    ...dateFormats.map((format) => ({
      value: format,
      label: `${format} (${formatDateTime(now, format)})`,
    })),
  ];
  return (
    <Stack gap="lg" maw={640}>
      <Title order={2}>Console Settings</Title>
      <Text c="dimmed" size="sm">
        These settings are kept in this browser and apply to this console only.
      </Text>

      <Card withBorder component="section" aria-labelledby={`${themeLabelId}-appearance`}>
        <Stack gap="md">
          <Title order={3} size="h4" id={`${themeLabelId}-appearance`}>
            Appearance
          </Title>
          <Stack gap={4}>
            <Text size="sm" fw={500} id={themeLabelId}>
              Theme
            </Text>
            <SegmentedControl
              aria-labelledby={themeLabelId}
              value={values.colorScheme}
              onChange={(scheme) => onChange({ colorScheme: scheme as ColorScheme })}
              data={[
                { value: 'light', label: 'Light' },
                { value: 'dark', label: 'Dark' },
              ]}
              w="fit-content"
            />
          </Stack>
          <Select
            label="Date format"
            description="Dates in lists and details; times are always 24-hour."
            data={dateChoices}
            value={values.dateFormat ?? clusterDateChoice}
            onChange={(choice) =>
              choice &&
              onChange({
                dateFormat: choice === clusterDateChoice ? undefined : (choice as DateFormat),
              })
            }
            allowDeselect={false}
            maw={360}
          />
        </Stack>
      </Card>

      <Card withBorder component="section" aria-labelledby={`${themeLabelId}-terminal`}>
        <Stack gap="md">
          <Title order={3} size="h4" id={`${themeLabelId}-terminal`}>
            Terminal
          </Title>
          <Text size="sm" c="dimmed">
            Terminals and the session player opened from now on use these.
          </Text>
          <Select
            label="Font"
            data={fontChoices}
            value={values.terminalFont}
            onChange={(font) => font && onChange({ terminalFont: font as TerminalFont })}
            allowDeselect={false}
            maw={360}
          />
          <NumberSetting
            label="Font size"
            description={`${fontSizeLimits.min} to ${fontSizeLimits.max} pixels.`}
            min={fontSizeLimits.min}
            max={fontSizeLimits.max}
            value={values.fontSize}
            onCommit={(fontSize) => onChange({ fontSize })}
            maw={200}
          />
          <NumberSetting
            label="Scrollback lines"
            description={`Lines kept above the screen. Default: ${defaultScrollback}.`}
            min={scrollbackLimits.min}
            max={scrollbackLimits.max}
            value={values.scrollback ?? defaultScrollback}
            onCommit={(scrollback) => onChange({ scrollback })}
            maw={200}
          />
        </Stack>
      </Card>

      <Group>
        <Button variant="default" onClick={onRestoreDefaults}>
          Restore defaults
        </Button>
      </Group>
    </Stack>
  );
}
