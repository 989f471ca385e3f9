/** Small media files built in memory, for probing, import and upload tests. */
/** An MP4 box of `type` holding `children`. */
export function box(type: string, ...children: Uint8Array[]): Uint8Array {
  const size = 8 + children.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, size);
  out.set(new TextEncoder().encode(type), 4);
  let at = 8;
  for (const c of children) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function bytes(length: number, fill: (v: DataView) => void): Uint8Array {
  const out = new Uint8Array(length);
  fill(new DataView(out.buffer));
  return out;
}

/** A minimal MP4: ftyp, then mdat, then moov with mvhd and a video trak. */
export function mp4(
  brand: string,
  timescale: number,
  duration: number,
  width: number,
  height: number,
): Uint8Array {
  const mvhd = bytes(100, (v) => {
    v.setUint32(12, timescale);
    v.setUint32(16, duration);
  });
  const tkhd = bytes(84, (v) => {
    v.setUint32(76, width * 65536);
    v.setUint32(80, height * 65536);
  });
  return [
    box("ftyp", new TextEncoder().encode(brand), new Uint8Array(4)),
    box("mdat", new Uint8Array(1000)),
    box("moov", box("mvhd", mvhd), box("trak", box("tkhd", tkhd))),
  ].reduce((a: Uint8Array, b: Uint8Array) => {
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  });
}

/** A minimal JPEG header (SOI, APP0, SOF0, EOI) of the given size. */
export function jpeg(width: number, height: number): Uint8Array {
  const app0 = [0xff, 0xe0, 0x00, 0x10, ...new Array(14).fill(0)];
  const sof = [
    0xff,
    0xc0,
    0x00,
    0x11,
    8,
    height >> 8,
    height & 255,
    width >> 8,
    width & 255,
    3,
    ...new Array(9).fill(0),
  ];
  return new Uint8Array([0xff, 0xd8, ...app0, ...sof, 0xff, 0xd9]);
}
