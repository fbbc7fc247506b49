import { parseAnsi, stripAnsi, type AnsiSpan } from './ansi'

const E = '\x1b'

describe('parseAnsi', () => {
  const cases: { name: string; input: string; want: AnsiSpan[] }[] = [
    { name: 'plain text', input: 'hello\nworld', want: [{ text: 'hello\n', className: '' }, { text: 'world', className: '' }] },
    { name: 'empty', input: '', want: [] },
    {
      name: 'a foreground colour and its reset',
      input: `ok ${E}[31mfail${E}[0m done`,
      want: [
        { text: 'ok ', className: '' },
        { text: 'fail', className: 'ansi-fg-1' },
        { text: ' done', className: '' },
      ],
    },
    {
      name: 'bright colours, bold, background, then partial resets',
      input: `${E}[1;92;44mA${E}[22mB${E}[39;49mC`,
      want: [
        { text: 'A', className: 'ansi-fg-10 ansi-bg-4 ansi-bold' },
        { text: 'B', className: 'ansi-fg-10 ansi-bg-4' },
        { text: 'C', className: '' },
      ],
    },
    {
      name: '256 colours keep the first 16, true colour is plain',
      input: `${E}[38;5;3mY${E}[38;5;200mZ${E}[38;2;10;20;30;4mU`,
      want: [
        { text: 'Y', className: 'ansi-fg-3' },
        { text: 'Z', className: '' },
        { text: 'U', className: 'ansi-underline' },
      ],
    },
    { name: 'an empty SGR resets', input: `${E}[33mx${E}[my`, want: [{ text: 'x', className: 'ansi-fg-3' }, { text: 'y', className: '' }] },
    {
      name: 'cursor moves, titles and control characters are dropped',
      input: `a${E}[2K${E}[1Gb${E}]0;title\x07c${E}]8;;http://x${E}\\d\x00\x08e\tf${E}(B`,
      want: [{ text: 'abcde\tf', className: '' }],
    },
    {
      name: 'HTML stays text',
      input: `<img src=x onerror=alert(1)>${E}[31m<b>`,
      want: [
        { text: '<img src=x onerror=alert(1)>', className: '' },
        { text: '<b>', className: 'ansi-fg-1' },
      ],
    },
    {
      name: 'a carriage return starts its line again; CRLF is a line end',
      input: `step\r\n10%\r${E}[32m50%\r100%${E}[0m\nnext`,
      want: [
        { text: 'step\n', className: '' },
        { text: '100%', className: 'ansi-fg-2' },
        { text: '\n', className: '' },
        { text: 'next', className: '' },
      ],
    },
    { name: 'an unfinished sequence at the end is dropped', input: `ok${E}[3`, want: [{ text: 'ok', className: '' }] },
    { name: 'inverse swaps the colours', input: `${E}[7mI${E}[27;31;7mJ`, want: [{ text: 'I', className: 'ansi-fg-inverse ansi-bg-7' }, { text: 'J', className: 'ansi-fg-inverse ansi-bg-1' }] },
  ]
  for (const c of cases) {
    it(c.name, () => {
      expect(parseAnsi(c.input)).toEqual(c.want)
    })
  }

  it('never leaves an escape character or a control character in the text', () => {
    // A cheap fuzz: random bytes of the interesting kinds.
    const alphabet = ['\x1b', '[', ']', 'm', ';', '3', '1', '\r', '\n', '\x07', '\\', 'a', '<', '\x00', '9', '38', '5']
    let seed = 7
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    for (let k = 0; k < 2000; k++) {
      let s = ''
      for (let j = 0; j < 40; j++) s += alphabet[Math.floor(rnd() * alphabet.length)]
      for (const span of parseAnsi(s)) {
        expect(span.text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/)
        expect(span.className).toMatch(/^[a-z0-9 -]*$/)
      }
    }
  })

  it('strips to plain text', () => {
    expect(stripAnsi(`${E}[1m${E}[31mred${E}[0m and plain`)).toBe('red and plain')
  })
})
