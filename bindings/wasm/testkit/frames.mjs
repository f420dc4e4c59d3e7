// WebSocket frames in the transcript-vector description form (tests/vectors/README.md):
// `{text|binary|ping|pong|close}` with optional `fin` / `opcode`, encoded the way the Rust runner does.

/** One `{text|binary|ping|pong|close}` frame, with `fin`/`opcode` overrides; masked when `mask` is given. */
export function encodeFrame(frame, mask) {
  const [defaultOpcode, payload] = framePayload(frame);
  const opcode = frame.opcode ?? defaultOpcode;
  const fin = frame.fin ?? true;
  const length = payload.length;
  const extended = length <= 125 ? 0 : length <= 0xffff ? 2 : 8;
  const head = Buffer.alloc(2 + extended);
  head[0] = (fin ? 0x80 : 0) | opcode;
  head[1] = (mask ? 0x80 : 0) | (extended === 0 ? length : extended === 2 ? 126 : 127);
  if (extended === 2) head.writeUInt16BE(length, 2);
  if (extended === 8) head.writeBigUInt64BE(BigInt(length), 2);
  if (!mask) return Buffer.concat([head, payload]);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  return Buffer.concat([head, Buffer.from(mask), masked]);
}

function framePayload(frame) {
  if (typeof frame.text === 'string') return [0x1, Buffer.from(frame.text, 'utf8')];
  if (typeof frame.binary === 'string') return [0x2, fromHex(frame.binary)];
  if (typeof frame.ping === 'string') return [0x9, Buffer.from(frame.ping, 'utf8')];
  if (typeof frame.pong === 'string') return [0xa, Buffer.from(frame.pong, 'utf8')];
  if (Array.isArray(frame.close)) {
    if (frame.close.length === 0) return [0x8, Buffer.alloc(0)];
    const code = Buffer.alloc(2);
    code.writeUInt16BE(frame.close[0]);
    return [0x8, Buffer.concat([code, Buffer.from(frame.close[1] ?? '', 'utf8')])];
  }
  throw new Error(`unknown frame ${JSON.stringify(frame)}`);
}

export function fromHex(hex) {
  return Buffer.from(hex.replace(/\s+/g, ''), 'hex');
}
