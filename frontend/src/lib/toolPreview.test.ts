import { toolPreview } from './toolPreview'

describe('a tool card’s folded line', () => {
  it.each([
    ['a listing says nothing more than its heading', '{"ok":true,"path":"@project","entries":[{"name":"a.md","type":"file","size":9}],"total":1}', null],
    ['a file read shows the file', '{"ok":true,"path":"@project/notes.md","content":"# Notes\\nship on friday\\n"}', '# Notes ship on friday'],
    ['a command shows its output', '{"ok":true,"exitCode":0,"output":"ok  \\tcrewagent/backend/llm\\t3.1s\\n"}', 'ok crewagent/backend/llm 3.1s'],
    ['a failure shows its message, not its code', '{"ok":false,"error":{"code":"E_NOT_FOUND","message":"no such file: @project/x.md"}}', 'no such file: @project/x.md'],
    ['plain text stays', 'hello\n  world', 'hello world'],
    ['the beginning of a large result', '{"ok":true,"path":"@project/big.log","content":"line one\\nline two\\nline thr', 'line one line two line thr'],
    ['nothing', '   ', null],
  ])('%s', (_, output, want) => {
    expect(toolPreview(output)).toBe(want)
  })

  it('is one line of at most 240 characters', () => {
    const p = toolPreview(JSON.stringify({ ok: true, content: 'x'.repeat(1000) }))!
    expect(p.length).toBe(241)
    expect(p.endsWith('…')).toBe(true)
  })
})
