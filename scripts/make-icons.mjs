// Writes the web app manifest's icons (public/icons/*.png): a white chat bubble on the app's
// blue. `node scripts/make-icons.mjs`; the PNGs are committed, so builds never run this.
import { mkdirSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const BLUE = [0x25, 0x63, 0xeb];
const WHITE = [0xff, 0xff, 0xff];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** `inside(x, y)` in unit coordinates (0..1) decides white pixels; `rounded` clips the corners. */
function png(size, { maskable }) {
  const radius = maskable ? 0 : 0.2;
  // Maskable icons keep their drawing inside the central 80% safe zone.
  const scale = maskable ? 0.7 : 1;
  const inBubble = (x, y) => {
    const u = (x - 0.5) / scale + 0.5;
    const v = (y - 0.5) / scale + 0.5;
    const body = u >= 0.22 && u <= 0.78 && v >= 0.25 && v <= 0.65 && roundRect(u, v);
    const tail = v > 0.64 && v < 0.8 && u > 0.32 && u < 0.46 && u - 0.32 < (0.8 - v) * 0.9;
    return body || tail;
  };
  const roundRect = (u, v) => {
    const r = 0.08;
    const cx = Math.min(Math.max(u, 0.22 + r), 0.78 - r);
    const cy = Math.min(Math.max(v, 0.25 + r), 0.65 - r);
    return (u - cx) ** 2 + (v - cy) ** 2 <= r * r;
  };
  const inCorner = (x, y) => {
    if (radius === 0) return false;
    const cx = Math.min(Math.max(x, radius), 1 - radius);
    const cy = Math.min(Math.max(y, radius), 1 - radius);
    return (x - cx) ** 2 + (y - cy) ** 2 > radius * radius;
  };
  const rows = [];
  for (let py = 0; py < size; py++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let px = 0; px < size; px++) {
      const x = (px + 0.5) / size;
      const y = (py + 0.5) / size;
      const [r, g, b] = inBubble(x, y) ? WHITE : BLUE;
      row.set([r, g, b, inCorner(x, y) ? 0 : 255], 1 + px * 4);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const dir = new URL('../public/icons/', import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL('icon-192.png', dir), png(192, { maskable: false }));
writeFileSync(new URL('icon-512.png', dir), png(512, { maskable: false }));
writeFileSync(new URL('icon-maskable-512.png', dir), png(512, { maskable: true }));
console.log('public/icons: icon-192.png, icon-512.png, icon-maskable-512.png');
