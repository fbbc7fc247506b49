// Terminal output as styled text: SGR colour codes become a few CSS classes,
// every other control sequence is dropped. The result is plain strings with
// class names: nothing in the output is ever read as HTML.

/** A run of text and the classes its SGR state gives it ('' for none). */
export interface AnsiSpan {
  text: string
  className: string
}

interface Sgr {
  fg: number // -1: default; 0-15
  bg: number
  bold: boolean
  dim: boolean
  italic: boolean
  underline: boolean
  inverse: boolean
}

const plain = (): Sgr => ({ fg: -1, bg: -1, bold: false, dim: false, italic: false, underline: false, inverse: false })

function classOf(s: Sgr): string {
  const c: string[] = []
  const fg = s.inverse ? s.bg : s.fg
  const bg = s.inverse ? (s.fg < 0 ? 7 : s.fg) : s.bg
  if (fg >= 0) c.push(`ansi-fg-${fg}`)
  else if (s.inverse) c.push('ansi-fg-inverse')
  if (bg >= 0) c.push(`ansi-bg-${bg}`)
  if (s.bold) c.push('ansi-bold')
  if (s.dim) c.push('ansi-dim')
  if (s.italic) c.push('ansi-italic')
  if (s.underline) c.push('ansi-underline')
  return c.join(' ')
}

/** Applies the parameters of one SGR sequence (ESC [ params m) to s. */
function applySgr(s: Sgr, params: string): void {
  const p = params === '' ? [0] : params.split(/[;:]/).map((x) => (x === '' ? 0 : Number.parseInt(x, 10)))
  for (let i = 0; i < p.length; i++) {
    const n = p[i]
    if (Number.isNaN(n)) continue
    if (n === 0) Object.assign(s, plain())
    else if (n === 1) s.bold = true
    else if (n === 2) s.dim = true
    else if (n === 3) s.italic = true
    else if (n === 4) s.underline = true
    else if (n === 7) s.inverse = true
    else if (n === 22) s.bold = s.dim = false
    else if (n === 23) s.italic = false
    else if (n === 24) s.underline = false
    else if (n === 27) s.inverse = false
    else if (n >= 30 && n <= 37) s.fg = n - 30
    else if (n >= 90 && n <= 97) s.fg = n - 90 + 8
    else if (n === 39) s.fg = -1
    else if (n >= 40 && n <= 47) s.bg = n - 40
    else if (n >= 100 && n <= 107) s.bg = n - 100 + 8
    else if (n === 49) s.bg = -1
    else if (n === 38 || n === 48) {
      // 256 colours (5;n) keep their first 16; true colour (2;r;g;b) is left plain.
      let colour = -1
      if (p[i + 1] === 5) {
        colour = p[i + 2] >= 0 && p[i + 2] < 16 ? p[i + 2] : -1
        i += 2
      } else if (p[i + 1] === 2) {
        i += 4
      }
      if (n === 38) s.fg = colour
      else s.bg = colour
    }
  }
}

/** Splits terminal output into styled spans: SGR codes set the classes;
 * other escape sequences (cursor moves, titles) and control characters are
 * dropped; a carriage return not followed by a line feed starts its line
 * again (progress bars). */
export function parseAnsi(input: string): AnsiSpan[] {
  const spans: AnsiSpan[] = []
  const s = plain()
  let cls = ''
  let buf = ''
  // The first span of the current line (buf is always within the line).
  let lineSpan = 0
  const push = () => {
    if (buf === '') return
    const last = spans[spans.length - 1]
    if (last && last.className === cls && spans.length > lineSpan) last.text += buf
    else spans.push({ text: buf, className: cls })
    buf = ''
  }
  const n = input.length
  let i = 0
  while (i < n) {
    const ch = input.charCodeAt(i)
    if (ch === 0x1b) {
      const next = input[i + 1]
      if (next === '[') {
        // CSI: parameters and intermediates, then a final byte in @..~
        let j = i + 2
        while (j < n && !(input.charCodeAt(j) >= 0x40 && input.charCodeAt(j) <= 0x7e)) j++
        if (j < n && input[j] === 'm') {
          push()
          applySgr(s, input.slice(i + 2, j))
          cls = classOf(s)
        }
        i = j + 1
      } else if (next === ']' || next === 'P' || next === '_' || next === '^') {
        // OSC, DCS, APC, PM: up to BEL or ESC \
        let j = i + 2
        while (j < n && input.charCodeAt(j) !== 0x07 && !(input.charCodeAt(j) === 0x1b && input[j + 1] === '\\')) j++
        i = j < n && input.charCodeAt(j) === 0x07 ? j + 1 : j + 2
      } else {
        // Other escapes: intermediates (space../), then one final byte.
        let j = i + 1
        while (j < n && input.charCodeAt(j) >= 0x20 && input.charCodeAt(j) <= 0x2f) j++
        i = j + 1
      }
      continue
    }
    if (ch === 0x0d) {
      if (input.charCodeAt(i + 1) === 0x0a || i + 1 === n) {
        i++
        continue
      }
      // Back to the start of the line: what it held so far is overwritten.
      buf = ''
      spans.length = lineSpan
      i++
      continue
    }
    if (ch === 0x0a) {
      buf += '\n'
      push()
      lineSpan = spans.length
      i++
      continue
    }
    if ((ch < 0x20 && ch !== 0x09) || ch === 0x7f) {
      i++
      continue
    }
    buf += input[i]
    i++
  }
  push()
  return spans
}

/** Plain text of terminal output (the codes removed). */
export const stripAnsi = (input: string) =>
  parseAnsi(input)
    .map((s) => s.text)
    .join('')
