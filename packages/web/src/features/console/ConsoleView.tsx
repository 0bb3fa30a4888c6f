import { ActionIcon, Anchor, Box, CloseButton, Group, Text, UnstyledButton } from '@mantine/core';
import { isNormalSessionEnd } from '@postern/contracts';
import { IconCopy } from '@tabler/icons-react';
import type { KeyboardEvent, ReactNode } from 'react';
import { canDuplicate, tabTitle, type ConsoleTab } from './consoleStore';

interface Props {
  tabs: ConsoleTab[];
  activeId: string;
  onActivate: (id: string) => void;
  onClose: (id: string) => void;
  /** Another session on a tab's server and login, in a new tab. */
  onDuplicate: (id: string) => void;
  /** A tab's content. Every tab stays mounted (its session lives on); only the active shows. */
  renderTab: (tab: ConsoleTab, active: boolean) => ReactNode;
  /** Where the console's home link goes (the Servers page of the main layout). */
  homeHref: string;
}

const tabDomId = (id: string) => `console-tab-${id}`;
const panelDomId = (id: string) => `console-panel-${id}`;

/** The full-page console: a tab strip like a terminal app's, and the tabs' panels. */
export function ConsoleView(props: Props) {
  const { tabs, activeId, onActivate, onClose, onDuplicate, renderTab, homeHref } = props;
  // Arrow keys move between tabs (the WAI-ARIA tabs pattern).
  const onKeyDown = (event: KeyboardEvent<HTMLElement>, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = tabs[(index + step + tabs.length) % tabs.length];
    if (!next) return;
    onActivate(next.id);
    document.getElementById(tabDomId(next.id))?.focus();
  };

  return (
    <Box style={{ display: 'flex', flexDirection: 'column', height: '100dvh' }}>
      <Group
        gap={0}
        wrap="nowrap"
        px="xs"
        style={{
          borderBottom: '1px solid var(--mantine-color-default-border)',
          background: 'var(--mantine-color-default-hover)',
          overflowX: 'auto',
          flexShrink: 0,
        }}
      >
        <Anchor href={homeHref} fw={700} fz="sm" mr="sm" aria-label="Postern home">
          Postern
        </Anchor>
        <Group role="tablist" aria-label="Console tabs" gap={2} wrap="nowrap">
          {tabs.map((tab, index) => {
            const active = tab.id === activeId;
            const title = tabTitle(tab);
            const ended = tab.kind === 'terminal' && tab.status === 'disconnected';
            const failed = ended && !isNormalSessionEnd(tab.reason);
            return (
              <Group
                key={tab.id}
                gap={0}
                wrap="nowrap"
                px={4}
                style={{
                  borderBottom: active
                    ? '2px solid var(--mantine-primary-color-filled)'
                    : '2px solid transparent',
                  background: active ? 'var(--mantine-color-body)' : undefined,
                }}
              >
                <UnstyledButton
                  role="tab"
                  id={tabDomId(tab.id)}
                  aria-selected={active}
                  aria-controls={panelDomId(tab.id)}
                  tabIndex={active ? 0 : -1}
                  onClick={() => onActivate(tab.id)}
                  onKeyDown={(e) => onKeyDown(e, index)}
                  px="sm"
                  py={8}
                  title={ended ? `${title} (disconnected)` : title}
                >
                  <Text
                    size="sm"
                    fw={active ? 600 : 400}
                    c={failed ? 'red' : ended ? 'dimmed' : undefined}
                    truncate
                    maw={220}
                  >
                    {title}
                  </Text>
                </UnstyledButton>
                {canDuplicate(tab) && (
                  <ActionIcon
                    size="sm"
                    variant="subtle"
                    color="gray"
                    aria-label={`Duplicate ${title}`}
                    title="Another session on this server"
                    onClick={() => onDuplicate(tab.id)}
                  >
                    <IconCopy size={14} aria-hidden="true" />
                  </ActionIcon>
                )}
                {tab.kind === 'terminal' && (
                  <CloseButton
                    size="sm"
                    aria-label={`Close ${title}`}
                    onClick={() => onClose(tab.id)}
                  />
                )}
              </Group>
            );
          })}
        </Group>
      </Group>
      {tabs.map((tab) => {
        const active = tab.id === activeId;
        return (
          <Box
            key={tab.id}
            role="tabpanel"
            id={panelDomId(tab.id)}
            aria-labelledby={tabDomId(tab.id)}
            hidden={!active}
            style={{ flex: 1, minHeight: 0, overflow: tab.kind === 'servers' ? 'auto' : 'hidden' }}
          >
            {renderTab(tab, active)}
          </Box>
        );
      })}
    </Box>
  );
}
