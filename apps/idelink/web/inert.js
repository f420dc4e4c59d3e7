// Model and peer text made inert and visible before the page shows it: the browser port of
// the terminal review's rules (apps/idelink/src/terminal/inert.rs, which a test of the relay keeps
// this file in step with). Shown as it is, a Unicode bidi control (CVE-2021-42574, "Trojan
// Source") makes a line read in another order than the one accepted, and an invisible
// character hides a difference; so every character the page would act on or not draw is shown
// as a visible marker (`<ESC>`, `<CR>`, `<U+202E>`), and the caller learns what was found so it
// can warn. Tab is kept; nothing is dropped.

/** The ASCII names of the C0 controls (ECMA-48 §8.2). */
const C0_NAMES = [
  "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR",
  "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
  "FS", "GS", "RS", "US",
];

/** Unicode TR#9 explicit formatting characters and the implicit marks. */
const BIDI = [
  [0x061C, 0x061C],
  [0x200E, 0x200E],
  [0x200F, 0x200F],
  [0x202A, 0x202E],
  [0x2066, 0x2069],
];

/**
 * Characters drawn as nothing (Unicode general category Cf, Zl, Zp, variation selectors,
 * fillers), apart from the bidi controls.
 */
const INVISIBLE = [
  [0x00AD, 0x00AD],
  [0x034F, 0x034F],
  [0x0600, 0x0605],
  [0x06DD, 0x06DD],
  [0x070F, 0x070F],
  [0x08E2, 0x08E2],
  [0x115F, 0x1160],
  [0x17B4, 0x17B5],
  [0x180B, 0x180F],
  [0x200B, 0x200D],
  [0x2028, 0x2029],
  [0x2060, 0x2064],
  [0x206A, 0x206F],
  [0x3164, 0x3164],
  [0xFE00, 0xFE0F],
  [0xFEFF, 0xFEFF],
  [0xFFA0, 0xFFA0],
  [0xFFF9, 0xFFFB],
  [0x110BD, 0x110BD],
  [0x110CD, 0x110CD],
  [0x13430, 0x1343F],
  [0x1BCA0, 0x1BCA3],
  [0x1D173, 0x1D17A],
  [0xE0000, 0xE007F],
  [0xE0100, 0xE01EF],
];

const within = (table, code) => table.some(([low, high]) => code >= low && code <= high);

/** 'controls', 'bidi', 'invisible', or null for a character shown as it is. */
export function classify(code) {
  if (code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xac)) return null;
  if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return 'controls';
  if (within(BIDI, code)) return 'bidi';
  if (within(INVISIBLE, code)) return 'invisible';
  return null;
}

/** The visible stand-in for a hidden character. */
function escapeOf(code) {
  if (code < 0x20) return `<${C0_NAMES[code]}>`;
  if (code === 0x7f) return '<DEL>';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** What kinds of hidden characters a text held. */
export function noFindings() {
  return { controls: false, bidi: false, invisible: false };
}

/**
 * `text` as nodes to append: plain runs as text, each hidden character as a `<mark
 * class="hidden-char">` holding its marker; what was found is added to `findings`.
 */
export function inertNodes(text, findings) {
  const nodes = [];
  let run = '';
  for (const ch of text) {
    const code = ch.codePointAt(0);
    const kind = classify(code);
    if (kind === null) {
      run += ch;
      continue;
    }
    findings[kind] = true;
    if (run) nodes.push(document.createTextNode(run));
    run = '';
    nodes.push(Object.assign(document.createElement('mark'), { className: 'hidden-char', textContent: escapeOf(code) }));
  }
  if (run || nodes.length === 0) nodes.push(document.createTextNode(run));
  return nodes;
}

/** `text` with every hidden character replaced by its marker (for titles and paths). */
export function inertText(text) {
  let shown = '';
  for (const ch of text) {
    const code = ch.codePointAt(0);
    shown += classify(code) === null ? ch : escapeOf(code);
  }
  return shown;
}

/** Whether anything was found. */
export function anyFound(findings) {
  return findings.controls || findings.bidi || findings.invisible;
}

/** The warning naming what was found, as the terminal review words it. */
export function warning(findings) {
  const kinds = [
    [findings.controls, 'control characters'],
    [findings.bidi, 'bidi controls (text may read reordered)'],
    [findings.invisible, 'invisible characters'],
  ].filter(([found]) => found).map(([, name]) => name);
  return `! warning: this hunk holds ${kinds.join(' and ')}, shown as <NAME> or <U+XXXX>`;
}
