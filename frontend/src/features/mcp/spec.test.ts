import type { McpServer } from '../../bridge'
import { emptyForm, formOf, lastLines, specFromForm, statusText } from './spec'

describe('the server form', () => {
  it('turns a saved local server into lines and back', () => {
    const spec = {
      name: 'github',
      command: 'npx',
      args: ['-y', 'github-mcp', '--read-only'],
      env: { Z_LAST: '1', GITHUB_TOKEN: '••••ghij', ORG: '${env:GITHUB_ORG}' },
      envFile: '${workspaceFolder}/.env',
      cwd: 'tools',
    }
    const form = formOf(spec)
    expect(form).toMatchObject({ kind: 'stdio', args: '-y\ngithub-mcp\n--read-only', env: 'GITHUB_TOKEN=••••ghij\nORG=${env:GITHUB_ORG}\nZ_LAST=1', envFile: '${workspaceFolder}/.env', cwd: 'tools' })
    expect(specFromForm(form)).toEqual({ spec: { ...spec, disabled: undefined }, problems: [] })
  })

  it('turns a remote server into lines and back', () => {
    const spec = { name: 'search', url: 'https://mcp.example.com/mcp', headers: { Authorization: '••••abcd', 'X-Team': 'crew' }, disabled: true }
    const form = formOf(spec)
    expect(form).toMatchObject({ kind: 'http', headers: 'Authorization: ••••abcd\nX-Team: crew', disabled: true })
    expect(specFromForm(form)).toEqual({ spec, problems: [] })
  })

  it('keeps a remote server\'s transport and sign-in through an edit, and drops them when it becomes a local one', () => {
    const oauth = { clientId: 'crew', clientSecret: '••••wxyz', scopes: ['mcp'] }
    const spec = { name: 'docs', url: 'https://mcp.example.com/sse', type: 'sse', oauth }
    const form = formOf(spec)
    expect(specFromForm({ ...form, headers: 'X-Team: crew' }).spec).toEqual({ ...spec, headers: { 'X-Team': 'crew' }, disabled: undefined })
    expect(specFromForm({ ...form, kind: 'stdio', command: 'docs-mcp' }).spec).toEqual({ name: 'docs', command: 'docs-mcp', disabled: undefined })
  })

  it('keeps values with "=" or ":" inside, skips blank lines, and keeps what the other kind had out', () => {
    const f = { ...emptyForm(), name: ' x ', command: ' node ', args: 'a b\n\n  \nc\r\n', env: 'A=1=2\n\nB=', url: 'ignored', headers: 'ignored: yes' }
    expect(specFromForm(f)).toEqual({ spec: { name: 'x', command: 'node', args: ['a b', 'c'], env: { A: '1=2', B: '' }, disabled: undefined }, problems: [] })
    const h = { ...emptyForm(), kind: 'http' as const, name: 'r', url: 'https://h/mcp', headers: 'Authorization: Bearer a:b', command: 'ignored' }
    expect(specFromForm(h).spec).toEqual({ name: 'r', url: 'https://h/mcp', headers: { Authorization: 'Bearer a:b' }, disabled: undefined })
  })

  it('says what is missing or malformed, line by line', () => {
    expect(specFromForm(emptyForm()).problems).toEqual(['Give the server a name.', 'Give the command that starts the server (for example npx or node).'])
    expect(specFromForm({ ...emptyForm(), name: 'a', command: 'b', env: 'OK=1\nno equals sign\n=value' }).problems).toEqual([
      'Environment, line 2: write NAME=value',
      'Environment, line 3: write NAME=value',
    ])
    expect(specFromForm({ ...emptyForm(), kind: 'http', name: 'a', headers: 'Authorization Bearer x' }).problems).toEqual([
      'Give the URL of the server (https://…/mcp).',
      'Headers, line 1: write Name: value',
    ])
  })

  it('says each state in words', () => {
    const s = (p: Partial<McpServer>) => ({ state: 'stopped', toolCount: 0, ...p }) as McpServer
    expect(statusText(s({ state: 'ready', toolCount: 13 }))).toBe('Ready · 13 tools')
    expect(statusText(s({ state: 'ready', toolCount: 1 }))).toBe('Ready · 1 tool')
    expect(statusText(s({ state: 'failed' }))).toBe('Failed')
    expect(statusText(s({ state: 'failed', gaveUp: true }))).toBe('Failed · not retried any more')
    expect(statusText(s({ state: 'pending-approval', approvalChanged: true }))).toBe('Changed · waiting for approval')
    expect(statusText(s({ state: 'stopped' }))).toBe('Not running')
    expect(lastLines('a\nb\nc\n\n', 2)).toBe('b\nc')
  })
})
