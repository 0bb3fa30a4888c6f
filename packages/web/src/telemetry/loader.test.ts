import { describe, expect, it, vi } from 'vitest';
import { startTelemetryIfEnabled, type TelemetryModule } from './loader';
import { captureUrl, createPageviewReporter, precaptureUrl } from './pageviews';

function deps(setting: string | null) {
  const startPageviews = vi.fn<TelemetryModule['startPageviews']>();
  const load = vi.fn(async (): Promise<TelemetryModule> => ({ startPageviews }));
  const storage = {
    getItem: vi.fn((key: string) => (key === 'enable-telemetry' ? setting : null)),
  };
  return { load, startPageviews, storage, currentPath: () => '/web', onPathChange: vi.fn() };
}

describe('telemetry loader', () => {
  it.each([null, 'false', 'TRUE', '1', 'yes'])(
    'does not load the module when enable-telemetry is %s',
    async (value) => {
      const d = deps(value);
      await expect(startTelemetryIfEnabled(d)).resolves.toBe(false);
      expect(d.load).not.toHaveBeenCalled();
    },
  );

  it("loads and starts it only when enable-telemetry is exactly 'true'", async () => {
    const d = deps('true');
    await expect(startTelemetryIfEnabled(d)).resolves.toBe(true);
    expect(d.load).toHaveBeenCalledOnce();
    expect(d.startPageviews).toHaveBeenCalledWith(
      expect.objectContaining({ currentPath: d.currentPath, onPathChange: d.onPathChange }),
    );
  });

  it('swallows a failing module load', async () => {
    const d = { ...deps('true'), load: () => Promise.reject(new Error('chunk missing')) };
    await expect(startTelemetryIfEnabled(d)).resolves.toBe(false);
  });
});

describe('page views', () => {
  it('posts each new path once, fire and forget, and swallows failures', async () => {
    const post = vi.fn(async () => {
      throw new Error('offline');
    });
    const report = createPageviewReporter(post);
    report('/web/clusters');
    report('/web/clusters');
    report('/web/support');
    report('/web/login');
    report('/web/invite/abc');
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(post.mock.calls).toEqual([
      [captureUrl, { event: 'pageview', path: '/web/clusters' }],
      [captureUrl, { event: 'pageview', path: '/web/support' }],
      // Before sign-in there is no session: those pages go to precapture.
      [precaptureUrl, { event: 'pageview', path: '/web/login' }],
      [precaptureUrl, { event: 'pageview', path: '/web/invite/abc' }],
    ]);
    expect(captureUrl).toBe('/v1/webapi/capture');
    expect(precaptureUrl).toBe('/v1/webapi/precapture');
  });
});
