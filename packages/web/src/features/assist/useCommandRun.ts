import { useEffect, useState } from 'react';
import type { AssistDeps } from './assistSocket';
import { CommandRun, idleRun, type RunRequest, type RunState } from './commandRun';
import { useStoreState } from './stateStore';

export interface RunControls {
  state: RunState;
  run: (request: RunRequest) => void;
}

/** The runs of one proposed command; leaving the conversation closes a run's socket. */
export function useCommandRun(
  deps: AssistDeps,
  clusterId: string,
  conversationId: string,
): RunControls {
  const [commandRun, setCommandRun] = useState<CommandRun>();
  useEffect(() => {
    const made = new CommandRun({ deps, clusterId, conversationId });
    setCommandRun(made);
    return () => made.dispose();
  }, [deps, clusterId, conversationId]);

  return {
    state: useStoreState(commandRun, idleRun),
    run: (request) => commandRun?.start(request),
  };
}
