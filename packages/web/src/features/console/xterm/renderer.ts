/**
 * Which xterm renderer to use. WebGL only with a real GPU: in software (SwiftShader, llvmpipe —
 * headless browsers, many VDI desktops) it renders about 2.7× slower than the DOM renderer
 * (DESIGN.md). Without WebGL2, or when the GPU cannot be told, the DOM renderer.
 */
export type RendererKind = 'webgl' | 'dom';

const softwareRenderer =
  /swiftshader|llvmpipe|softpipe|software|basic render driver|mesa offscreen/i;

/** The GL calls used, so a test can pass a fake context. */
interface GlLike {
  RENDERER: number;
  getExtension(name: string): unknown;
  getParameter(name: number): unknown;
}

interface CanvasFactory {
  createElement(tag: 'canvas'): { getContext(kind: 'webgl2'): unknown };
}

export function isSoftwareRenderer(name: string): boolean {
  return softwareRenderer.test(name);
}

export function chooseRenderer(doc: CanvasFactory = document): RendererKind {
  try {
    const gl = doc.createElement('canvas').getContext('webgl2') as GlLike | null;
    if (!gl) return 'dom';
    const info = gl.getExtension('WEBGL_debug_renderer_info') as {
      UNMASKED_RENDERER_WEBGL: number;
    } | null;
    const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? '');
    // The probe's context is not needed any more; browsers limit live contexts.
    (gl.getExtension('WEBGL_lose_context') as { loseContext(): void } | null)?.loseContext();
    return isSoftwareRenderer(name) ? 'dom' : 'webgl';
  } catch {
    return 'dom';
  }
}
