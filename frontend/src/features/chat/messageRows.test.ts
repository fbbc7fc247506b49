import type { Entry } from '../../bridge'
import { answerOf, argsPreview, buildRows, describeEvent, formatDuration, parseErrorContent, pendingWidgetIds, readableOutput, userInput, widgetOf } from './messageRows'

const msg = (id: string, role: string, content: string | undefined, extra: Partial<Entry> = {}): Entry => ({ type: 'msg', id, createdAt: '', role, content, ...extra })
const call = (id: string, name: string, args = '{}') => ({ id, type: 'function', function: { name, arguments: args } })

describe('buildRows (tool calls and results are never bubbles)', () => {
  const entries: Entry[] = [
    msg('s', 'system', 'system prompt'),
    msg('u1', 'user', 'list files'),
    msg('a1', 'assistant', undefined, { tool_calls: [call('c1', 'fs.list', '{"path":"@project"}'), call('c2', 'fs.read', '{"path":"@project/a"}')] }),
    msg('t1', 'tool', '{"entries":[]}', { tool_call_id: 'c1', tool_name: 'fs.list' }),
    msg('t2', 'tool', 'no such file', { tool_call_id: 'c2', tool_name: 'fs.read', is_error: true }),
    msg('a2', 'assistant', 'Let me look again.', { tool_calls: [call('c3', 'fs.search')] }),
    msg('a3', 'assistant', 'Done.'),
    msg('meta', 'user', 'hidden', { is_meta: true }),
    msg('dev', 'developer', 'hidden'),
    { type: 'evt', id: 'e1', createdAt: '', event: 'compaction', data: { strategy: 'key-messages', compactedIds: ['u1', 'a1'], tokensBefore: 900, tokensAfter: 300 } },
    msg('orphan', 'tool', 'result without its call', { tool_call_id: 'gone', tool_name: 'fs.list' }),
  ]

  it('maps each entry kind to its row', () => {
    const rows = buildRows(entries, [], false)
    expect(rows.map((r) => `${r.kind}:${r.key}`)).toEqual([
      'user:u1',
      'tool:a1:c1',
      'tool:a1:c2',
      'assistant:a2',
      'tool:a2:c3',
      'assistant:a3',
      'event:e1',
      'tool:orphan',
    ])
    const tools = rows.filter((r) => r.kind === 'tool')
    expect(tools.map((r) => r.kind === 'tool' && r.status)).toEqual(['ok', 'error', 'no-result', 'ok'])
    const first = tools[0]
    expect(first.kind === 'tool' && first.result?.id).toBe('t1')
    expect(rows.some((r) => r.kind === 'assistant' && r.entry.id === 'a1')).toBe(false)
  })

  it('marks calls without a result as running while streaming', () => {
    const rows = buildRows(entries, [], true)
    expect(rows.find((r) => r.key === 'a2:c3')).toMatchObject({ status: 'running' })
  })

  it('describes the compaction event', () => {
    const row = buildRows(entries).find((r) => r.kind === 'event')
    expect(row).toMatchObject({ label: 'Context compressed', detail: '2 messages · 900 → 300 tokens · key-messages' })
  })

  it('appends live calls that are not persisted yet', () => {
    const rows = buildRows([msg('u1', 'user', 'hi')], [
      { messageId: 'live1', turn: 0, text: 'Hel', tools: [], ended: false },
      { messageId: 'live2', turn: 1, text: '', tools: [{ toolCallId: 'x', toolName: 'fs.list', index: 0, status: 'running' }], ended: false },
      { messageId: 'u1', turn: 0, text: 'already persisted', tools: [], ended: true },
    ])
    expect(rows.map((r) => r.kind)).toEqual(['user', 'live', 'live-tool'])
  })

  it('shows an answer cut short as incomplete, actionable while it is the latest', () => {
    const cut = msg('a1', 'assistant', 'The first half', { finishReason: 'length' } as Partial<Entry>)
    const filtered = msg('a2', 'assistant', '', { finishReason: 'content_filter' } as Partial<Entry>)
    let rows = buildRows([msg('u1', 'user', 'explain'), cut])
    expect(rows[1]).toMatchObject({ kind: 'assistant', text: 'The first half', incomplete: 'length', latest: true })
    rows = buildRows([msg('u1', 'user', 'explain'), cut, msg('u2', 'user', 'continue'), filtered])
    expect(rows[1]).toMatchObject({ incomplete: 'length', latest: false })
    expect(rows[3]).toMatchObject({ kind: 'assistant', text: '', incomplete: 'content_filter', latest: true })
    expect(buildRows([msg('a3', 'assistant', 'Done.', { finishReason: 'stop' } as Partial<Entry>)])[0]).not.toHaveProperty('incomplete')
  })

  it('makes only the newest error actionable, and not after a later user message', () => {
    const err = (id: string) => msg(id, 'assistant', `partial\n\nLLM_ERROR\n- code: LLM_TIMEOUT\n- message: no data for 60s\n- retryable: true`, { partType: 'error' })
    const open = buildRows([msg('u', 'user', 'q'), err('e1'), msg('u2', 'user', 'again'), err('e2')])
    expect(open.filter((r) => r.kind === 'error').map((r) => r.kind === 'error' && r.latest)).toEqual([false, true])
    const answered = buildRows([msg('u', 'user', 'q'), err('e1'), msg('u2', 'user', 'continue')])
    expect(answered.find((r) => r.kind === 'error')).toMatchObject({ latest: false })
  })
})

describe('buildRows: a reply that never finished', () => {
  const evt = (id: string): Entry => ({ type: 'evt', id, createdAt: '', event: 'checkpoint', data: { name: 'cp' } })
  const tools = [msg('a1', 'assistant', undefined, { tool_calls: [call('c1', 'fs.list')] })]
  const widget = (answered: boolean): Entry[] => [
    msg('a2', 'assistant', undefined, { runId: 'r1', tool_calls: [call('k1', 'ui.ask_user', '{"type":"confirmation","prompt":"Go?"}')] }),
    msg('t2', 'tool', '{"ok":true,"pending":true}', { runId: 'r1', tool_call_id: 'k1', tool_name: 'ui.ask_user', widget: { widgetId: 'w1', createdAt: '', type: 'confirmation', prompt: 'Go?' } }),
    ...(answered ? [msg('u3', 'user', 'Answer to "Go?" (widget w1):\nyes', { runId: 'r1', widget: { widgetId: 'w1', type: 'confirmation', answer: { confirmed: true } } })] : []),
  ]
  const cases: { name: string; entries: Entry[]; unfinished: boolean }[] = [
    { name: 'a user message without a reply', entries: [msg('u1', 'user', 'hi')], unfinished: true },
    { name: 'a user message, then only a checkpoint', entries: [msg('u1', 'user', 'hi'), evt('e1')], unfinished: true },
    { name: 'a tool call without its result', entries: [msg('u1', 'user', 'list'), ...tools], unfinished: true },
    { name: 'a tool result without the answer after it', entries: [msg('u1', 'user', 'list'), ...tools, msg('t1', 'tool', '{}', { tool_call_id: 'c1' })], unfinished: true },
    { name: 'reasoning without the answer', entries: [msg('u1', 'user', 'why'), msg('r1', 'assistant', 'hmm', { partType: 'thinking' })], unfinished: true },
    { name: 'an answered widget without what followed', entries: widget(true), unfinished: true },
    { name: 'an answer', entries: [msg('u1', 'user', 'hi'), msg('a9', 'assistant', 'hello')], unfinished: false },
    { name: 'a persisted failure', entries: [msg('u1', 'user', 'hi'), msg('x', 'assistant', 'LLM_ERROR\n- code: LLM_TIMEOUT', { partType: 'error' })], unfinished: false },
    { name: 'a widget waiting for its answer', entries: widget(false), unfinished: false },
    { name: 'nothing', entries: [], unfinished: false },
  ]
  for (const c of cases) {
    it(`${c.unfinished ? 'ends' : 'does not end'} in an unfinished row after ${c.name}`, () => {
      const rows = buildRows(c.entries, [], false, true)
      expect(rows.filter((r) => r.kind === 'unfinished')).toHaveLength(c.unfinished ? 1 : 0)
      if (c.unfinished) expect(rows[rows.length - 1].kind).toBe('unfinished')
    })
  }

  it('says nothing while a reply runs, while its live calls show, or about entries read during a reply', () => {
    const entries = [msg('u1', 'user', 'hi')]
    expect(buildRows(entries, [], true, true).some((r) => r.kind === 'unfinished')).toBe(false)
    expect(buildRows(entries, [{ messageId: 'l1', turn: 0, text: 'He', tools: [], ended: true }], false, true).some((r) => r.kind === 'unfinished')).toBe(false)
    expect(buildRows(entries, [], false, false).some((r) => r.kind === 'unfinished')).toBe(false)
  })
})

describe('parseErrorContent', () => {
  it('splits the partial text from the LLM_ERROR block', () => {
    const r = parseErrorContent('Half an ans\n\nLLM_ERROR\n- code: LLM_NETWORK\n- message: the connection closed\n- retryable: true\n- provider: 127.0.0.1:9')
    expect(r.partial).toBe('Half an ans')
    expect(r.error).toMatchObject({ code: 'LLM_NETWORK', message: 'the connection closed', retryable: true })
    expect(r.error.fields.provider).toBe('127.0.0.1:9')
  })
  it('handles a block without partial text and text without a block', () => {
    expect(parseErrorContent('LLM_ERROR\n- code: LLM_AUTH\n- message: bad key').partial).toBe('')
    expect(parseErrorContent('something odd').error).toMatchObject({ code: 'LLM_ERROR', message: 'something odd' })
  })
})

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
  it('labels checkpoint, fork and mode events', () => {
    expect(describeEvent({ type: 'evt', id: 'x', createdAt: '', event: 'checkpoint', data: { name: 'v1' } }).label).toBe('Checkpoint “v1”')
    expect(describeEvent({ type: 'evt', id: 'x', createdAt: '', event: 'fork_origin', data: { parentTitle: 'Main', checkpoint: 'v1' } })).toEqual({ label: 'Forked from “Main”', detail: 'at checkpoint “v1”' })
    expect(describeEvent({ type: 'evt', id: 'x', createdAt: '', event: 'mode_switch', data: { from: 'chat', to: 'agent' } }).label).toBe('Switched to agent mode')
  })
})

describe('readableOutput', () => {
  it('pretty-prints JSON and shows a content field as text', () => {
    expect(readableOutput('{"ok":true,"path":"a","content":"line 1\\nline 2"}')).toBe('{\n  "ok": true,\n  "path": "a"\n}\n\ncontent:\nline 1\nline 2')
    expect(readableOutput('{"entries":[1,2]}')).toBe('{\n  "entries": [\n    1,\n    2\n  ]\n}')
    expect(readableOutput('plain text')).toBe('plain text')
    expect(readableOutput('{broken')).toBe('{broken')
  })
})

describe('buildRows in run mode (ui.ask_user widgets)', () => {
  const ask = (id: string, callId: string, widget: Record<string, unknown>, runId = 'r1'): Entry[] => [
    msg(`a-${id}`, 'assistant', undefined, { runId, mode: 'run', tool_calls: [call(callId, 'ui.ask_user', JSON.stringify({ type: widget.type, prompt: widget.prompt }))] }),
    msg(`t-${id}`, 'tool', '{"ok":true,"pending":true}', { runId, mode: 'run', tool_call_id: callId, tool_name: 'ui.ask_user', widget: { widgetId: id, createdAt: '', ...widget } }),
  ]
  const selection = { type: 'selection', prompt: 'Which format?', options: [{ value: 'one', label: 'One page' }, { value: 'bullets', label: 'Bullets' }] }

  it('shows the pending widget instead of a tool card', () => {
    const rows = buildRows([msg('u1', 'user', 'USER_INPUT\n- forNodeId: capture-idea\nmy idea', { runId: 'r1', mode: 'run' }), ...ask('w1', 'k1', selection)])
    expect(rows.map((r) => r.kind)).toEqual(['user', 'widget'])
    expect(rows[0]).toMatchObject({ text: 'my idea', forNode: 'capture-idea' })
    expect(rows[1]).toMatchObject({ kind: 'widget', state: 'pending', runId: 'r1' })
  })

  it('shows an answered widget with its answer and hides the message that carries it', () => {
    const answer = msg('u2', 'user', 'USER_INPUT\n- forNodeId: check-clarity\nAnswer to "Which format?" (widget w1):\nOne page', {
      runId: 'r1',
      mode: 'run',
      widget: { widgetId: 'w1', type: 'selection', answer: { selected: 'one' } },
    })
    const rows = buildRows([...ask('w1', 'k1', selection), answer, msg('a9', 'assistant', 'Thanks.', { runId: 'r1' })])
    expect(rows.map((r) => r.kind)).toEqual(['widget', 'assistant'])
    expect(rows[0]).toMatchObject({ state: 'answered', answer: { widgetId: 'w1', answer: { selected: 'one' } } })
  })

  it('marks a widget the conversation went past as unanswered, per run', () => {
    const rows = buildRows([...ask('w1', 'k1', selection), msg('u2', 'user', 'something else', { runId: 'r1' }), ...ask('w2', 'k2', selection, 'r2')])
    const widgets = rows.filter((r) => r.kind === 'widget')
    expect(widgets.map((r) => r.kind === 'widget' && `${r.widget.widgetId}:${r.state}`)).toEqual(['w1:unanswered', 'w2:pending'])
    expect(pendingWidgetIds([...ask('w1', 'k1', selection), msg('x', 'tool', 'other result', { runId: 'r1', tool_call_id: 'zz' })])).toEqual(new Set(['w1']))
  })

  it('reads widgets stored as JSON text and ignores malformed ones', () => {
    const t = msg('t1', 'tool', 'x', { tool_call_id: 'k', runId: 'r1', widget: JSON.stringify({ widgetId: 'w9', type: 'confirmation', prompt: 'Sure?' }) })
    expect(widgetOf(t)?.widgetId).toBe('w9')
    expect(widgetOf(msg('t2', 'tool', 'x', { widget: '{broken' }))).toBeNull()
    expect(widgetOf(msg('t3', 'tool', 'x', { widget: { type: 'confirmation' } }))).toBeNull()
    expect(answerOf(msg('u', 'user', 'x', { widget: { widgetId: 'w9', type: 'confirmation', answer: { confirmed: true } } }))?.answer.confirmed).toBe(true)
  })

  it('strips the USER_INPUT header only when it is one', () => {
    expect(userInput('USER_INPUT\n- forNodeId: end\nhello\nworld')).toEqual({ text: 'hello\nworld', forNode: 'end' })
    expect(userInput('plain text')).toEqual({ text: 'plain text' })
  })
})
