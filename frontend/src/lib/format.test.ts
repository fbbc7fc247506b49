import { argsPreview, formatBytes, formatDuration, readableOutput } from './format'

describe('helpers', () => {
  it('previews arguments on one line', () => {
    expect(argsPreview('{"path":"@project","depth":2}')).toBe('path: @project, depth: 2')
    expect(argsPreview('{"path": "@pro')).toBe('{"path": "@pro')
    expect(argsPreview(JSON.stringify({ text: 'x'.repeat(300) })).length).toBe(120)
  })
  it('formats durations', () => {
    expect(formatDuration(undefined)).toBe('')
    expect(formatDuration(12)).toBe('12 ms')
    expect(formatDuration(1500)).toBe('1.5 s')
    expect(formatDuration(125000)).toBe('2 min 5 s')
  })
})

describe('readableOutput', () => {
  it('pretty-prints JSON and shows a content field as text', () => {
    expect(readableOutput('{"ok":true,"path":"a","content":"line 1\\nline 2"}')).toBe('{\n  "ok": true,\n  "path": "a"\n}\n\ncontent:\nline 1\nline 2')
    expect(readableOutput('{"entries":[1,2]}')).toBe('{\n  "entries": [\n    1,\n    2\n  ]\n}')
    expect(readableOutput('plain text')).toBe('plain text')
    expect(readableOutput('{broken')).toBe('{broken')
    expect(readableOutput('{"ok":true,"text":"Echo: hi\\nthere"}')).toBe('{\n  "ok": true\n}\n\ntext:\nEcho: hi\nthere')
  })

  it('says byte counts in words', () => {
    expect([1, 820, 78563, 2_500_000].map(formatBytes)).toEqual(['1 byte', '820 bytes', '77 KB', '2.4 MB'])
  })
})
