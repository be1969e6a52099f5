/**
 * A 16×16 icon (a dark disc) drawn here rather than shipped as a file: what a browser asks for at `/favicon.ico` on
 * every page of the gateway (`/docs`, `/admin/queues`), so none logs a 404. An ICO holding one 32-bit bitmap.
 */
export function faviconIco(): Buffer {
  const size = 16;
  // BGRA rows, bottom row first; outside the disc fully transparent.
  const pixels = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const inside = (x - 7.5) ** 2 + (y - 7.5) ** 2 <= 7.5 ** 2;
      if (inside) pixels.set([0x3b, 0x2a, 0x20, 0xff], ((size - 1 - y) * size + x) * 4);
    }
  }
  // The AND mask: 1 bit a pixel, rows padded to 4 bytes; all 0, so the alpha channel alone decides.
  const mask = Buffer.alloc(size * 4);
  const bitmap = Buffer.alloc(40);
  bitmap.writeUInt32LE(40, 0); // BITMAPINFOHEADER
  bitmap.writeInt32LE(size, 4);
  bitmap.writeInt32LE(size * 2, 8); // the XOR image and the AND mask, stacked
  bitmap.writeUInt16LE(1, 12); // planes
  bitmap.writeUInt16LE(32, 14); // bits per pixel
  bitmap.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([bitmap, pixels, mask]);
  const directory = Buffer.alloc(6 + 16);
  directory.writeUInt16LE(1, 2); // type: icon
  directory.writeUInt16LE(1, 4); // one image
  directory.writeUInt8(size, 6);
  directory.writeUInt8(size, 7);
  directory.writeUInt16LE(1, 10); // planes
  directory.writeUInt16LE(32, 12); // bits per pixel
  directory.writeUInt32LE(image.length, 14);
  directory.writeUInt32LE(directory.length, 18); // the image's offset
  return Buffer.concat([directory, image]);
}
