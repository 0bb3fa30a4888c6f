import type { DesktopSurface } from './rectDrawer';

/** A desktop recording's surface: the canvas at the recording's size (CSS scales it to fit). */
export function openCanvasSurface(canvas: HTMLCanvasElement): DesktopSurface {
  const context = canvas.getContext('2d');
  return {
    resize: (width, height) => {
      // Setting the size clears the canvas: a new screen starts blank.
      canvas.width = width;
      canvas.height = height;
    },
    draw: (x, y, width, height, rgba) => {
      context?.putImageData(
        new ImageData(rgba as Uint8ClampedArray<ArrayBuffer>, width, height),
        x,
        y,
      );
    },
  };
}
