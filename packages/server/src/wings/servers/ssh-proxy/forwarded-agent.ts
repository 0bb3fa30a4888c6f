import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import { openAgentChannel } from '../../../ssh/ssh2-internals.js';

/**
 * The agent of an SSH client that asked for agent forwarding (`ssh -A`), as ssh2 wants it on the
 * proxy's connection to the node: each agent channel the node opens is answered by opening one
 * back to the client over its inner connection. The proxy never uses the agent itself (logins
 * use Postern's own certificates), so identities and signing are refused here.
 */
export class ForwardedAgent extends ssh2.BaseAgent {
  constructor(private readonly clientConnection: object) {
    super();
  }

  override getIdentities(callback: (error: Error | undefined, keys?: Buffer[]) => void): void {
    callback(new Error('the forwarded agent is for the node, not the proxy'));
  }

  override sign(_key: unknown, _data: Buffer, ...rest: unknown[]): void {
    const callback = rest.at(-1) as (error: Error) => void;
    callback(new Error('the forwarded agent is for the node, not the proxy'));
  }

  override getStream(callback: (error: Error | undefined, stream?: Duplex) => void): void {
    openAgentChannel(this.clientConnection).then(
      (stream) => callback(undefined, stream),
      (error: Error) => callback(error),
    );
  }
}
