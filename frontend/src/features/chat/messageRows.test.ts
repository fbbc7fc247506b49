import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Entry } from '../../bridge'
import { answer, evt, failure, incomplete, msg, question, runInput } from '../../test/entries'
import { buildRows, describeEvent } from './messageRows'

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
    evt('e1', 'compaction', { strategy: 'key-messages', compactedIds: ['u1', 'a1'], tokensBefore: 900, tokensAfter: 300 }),
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

  it('describes a compaction event of an older backend in words', () => {
    const row = buildRows(entries).find((r) => r.kind === 'event')
    expect(row).toMatchObject({ label: 'Compacted older messages', detail: '' })
    expect(describeEvent(evt('e2', 'compaction', { count: 212, strategy: 'key-messages' }))).toEqual({ label: 'Compacted 212 messages', detail: '' })
  })

  it('shows a compaction the backend described as a card', () => {
    const compaction = { count: 2, manual: true, focus: 'the budget', tokensBefore: 900, tokensAfter: 300, method: 'the key lines kept', summary: '**You:** budget', pinned: [] }
    const rows = buildRows([...entries.slice(0, 9), { ...evt('e1', 'compaction', {}), view: { kind: 'event', compaction } }])
    expect(rows.at(-1)).toMatchObject({ kind: 'compaction', key: 'e1', compaction })
  })

  it('names agents and workflows in dividers by their names, not their ids', () => {
    expect(describeEvent(evt('m', 'mode_switch', { to: 'agent', agentId: 'analyst' }), (id) => (id === 'analyst' ? 'Mara' : id)).label).toBe('Switched to agent mode (Mara)')
    expect(describeEvent(evt('m', 'mode_switch', { to: 'workflow' })).label).toBe('Switched to run mode')
    expect(describeEvent(evt('r', 'run_started', { workflowId: 'write-brief' }))).toEqual({ label: 'Workflow run started', detail: '' })
  })

  it('appends live calls that are not persisted yet', () => {
    const rows = buildRows([msg('u1', 'user', 'hi')], [
      { messageId: 'live1', turn: 0, text: 'Hel', tools: [], ended: false },
      { messageId: 'live2', turn: 1, text: '', tools: [{ toolCallId: 'x', toolName: 'fs.list', index: 0, status: 'running' }], ended: false },
      { messageId: 'u1', turn: 0, text: 'already persisted', tools: [], ended: true },
    ])
    expect(rows.map((r) => r.kind)).toEqual(['user', 'live', 'live-tool'])
  })

  it('shows a failure with its partial answer, actionable when the backend says it is the latest', () => {
    const rows = buildRows([msg('u', 'user', 'q'), failure('e1', 'partial', 'LLM_TIMEOUT', 'no data for 60s'), msg('u2', 'user', 'again'), failure('e2', 'partial', 'LLM_TIMEOUT', 'no data for 60s', { latest: true })])
    const errors = rows.filter((r) => r.kind === 'error')
    expect(errors.map((r) => r.kind === 'error' && r.latest)).toEqual([false, true])
    expect(errors[1]).toMatchObject({ partial: 'partial', error: { code: 'LLM_TIMEOUT', message: 'no data for 60s' } })
  })

  it('shows an answer cut short as incomplete, actionable when the backend says it is the latest', () => {
    const cut = incomplete('a1', 'The first half', 'length')
    let rows = buildRows([msg('u1', 'user', 'explain'), incomplete('a1', 'The first half', 'length', { latest: true })])
    expect(rows[1]).toMatchObject({ kind: 'assistant', text: 'The first half', incomplete: 'length', latest: true })
    rows = buildRows([msg('u1', 'user', 'explain'), cut, msg('u2', 'user', 'continue'), incomplete('a2', '', 'content_filter', { latest: true })])
    expect(rows[1]).toMatchObject({ incomplete: 'length', latest: false })
    expect(rows[3]).toMatchObject({ kind: 'assistant', text: '', incomplete: 'content_filter', latest: true })
    expect(buildRows([msg('a3', 'assistant', 'Done.', { finishReason: 'stop' })])[0]).not.toHaveProperty('incomplete')
  })
})

describe('buildRows: a reply that never finished', () => {
  it('ends in an unfinished row when the page says so and nothing runs', () => {
    const entries = [msg('u1', 'user', 'hi')]
    const rows = buildRows(entries, [], false, { unfinished: true })
    expect(rows[rows.length - 1]).toMatchObject({ kind: 'unfinished', canContinue: false })
    expect(buildRows(entries, [], false, {}).some((r) => r.kind === 'unfinished')).toBe(false)
    expect(buildRows(entries, [], false, { unfinished: true, canContinue: true }).pop()).toMatchObject({ kind: 'unfinished', canContinue: true })
  })

  it('says nothing while a reply runs or while its live calls show', () => {
    const entries = [msg('u1', 'user', 'hi')]
    expect(buildRows(entries, [], true, { unfinished: true }).some((r) => r.kind === 'unfinished')).toBe(false)
    expect(buildRows(entries, [{ messageId: 'l1', turn: 0, text: 'He', tools: [], ended: true }], false, { unfinished: true }).some((r) => r.kind === 'unfinished')).toBe(false)
  })

  it('ends a fork cut at a message with a quiet "awaiting" row, not the crash notice', () => {
    const rows = buildRows([evt('f', 'fork_origin', { parentTitle: 'Main' }), msg('u1', 'user', 'hi')], [], false, { awaiting: true })
    expect(rows.map((r) => r.kind)).toEqual(['event', 'user', 'awaiting'])
  })
})

describe('describeEvent', () => {
  it('labels checkpoint, fork and mode events', () => {
    expect(describeEvent({ type: 'evt', id: 'x', createdAt: '', event: 'checkpoint', data: { name: 'v1' } }).label).toBe('Checkpoint “v1”')
    expect(describeEvent({ type: 'evt', id: 'x', createdAt: '', event: 'fork_origin', data: { parentTitle: 'Main', checkpoint: 'v1' } })).toEqual({ label: 'Forked from “Main”', detail: 'at checkpoint “v1”' })
    expect(describeEvent({ type: 'evt', id: 'x', createdAt: '', event: 'mode_switch', data: { from: 'chat', to: 'agent' } }).label).toBe('Switched to agent mode')
  })
})

describe('buildRows in run mode (ui.ask_user questions)', () => {
  const selection = { type: 'selection', prompt: 'Which format?', options: [{ value: 'one', label: 'One page' }, { value: 'bullets', label: 'Bullets' }] }

  it('shows the pending question instead of a tool card, and a run input without its header', () => {
    const rows = buildRows([runInput('u1', 'capture-idea', 'my idea', { runId: 'r1' }), ...question('w1', 'k1', selection, 'pending')])
    expect(rows.map((r) => r.kind)).toEqual(['user', 'widget'])
    expect(rows[0]).toMatchObject({ text: 'my idea', forNode: 'capture-idea' })
    expect(rows[1]).toMatchObject({ kind: 'widget', state: 'pending', runId: 'r1', widget: { widgetId: 'w1', prompt: 'Which format?' } })
  })

  it('shows an answered question with its answer and hides the message that carries it', () => {
    const record = { widgetId: 'w1', type: 'selection', answer: { selected: 'one' } }
    const rows = buildRows([...question('w1', 'k1', selection, 'answered', 'r1', record), answer('u2', 'w1', 'selection', { selected: 'one' }, 'One page'), msg('a9', 'assistant', 'Thanks.', { runId: 'r1' })])
    expect(rows.map((r) => r.kind)).toEqual(['widget', 'assistant'])
    expect(rows[0]).toMatchObject({ state: 'answered', answer: { widgetId: 'w1', answer: { selected: 'one' } } })
  })

  it('shows an answer whose question is not loaded as the user message it is', () => {
    const rows = buildRows([answer('u2', 'w1', 'selection', { selected: 'one' }, 'One page')])
    expect(rows).toMatchObject([{ kind: 'user', text: 'One page', forNode: 'check-clarity' }])
  })
})

// The rows of what the backend sends for a run's conversation: the views of
// backend/conversation/testdata/views.golden.json (written by its Go test).
describe('buildRows over the backend views', () => {
  const golden = JSON.parse(readFileSync(resolve(process.cwd(), '../backend/conversation/testdata/views.golden.json'), 'utf8')) as {
    entries: Entry[]
    unfinished: boolean
  }

  it('renders every entry as the backend decoded it', () => {
    const rows = buildRows(golden.entries, [], false, { unfinished: golden.unfinished })
    expect(rows.map((r) => `${r.kind}:${r.key}`)).toEqual(['event:e0', 'user:u1', 'assistant:a1', 'tool:a1:c1', 'widget:a-w1:k1', 'error:x1'])
    expect(rows[1]).toMatchObject({ text: 'A grocery list for roommates.', forNode: 'capture-idea' })
    expect(rows[4]).toMatchObject({ state: 'answered', widget: { prompt: 'Which format?' }, answer: { answer: { selected: 'one' } } })
    expect(rows[5]).toMatchObject({ partial: 'Half', latest: true, error: { code: 'LLM_AUTH', message: 'bad key', retryable: false } })
  })
})

// The rows of a chat conversation with versions, a failure, a stop and a
// large result, as backend/conversation writes its views
// (testdata/chat-views.golden.json, from its Go test).
describe('buildRows over the backend views of a chat with versions', () => {
  const golden = JSON.parse(readFileSync(resolve(process.cwd(), '../backend/conversation/testdata/chat-views.golden.json'), 'utf8')) as {
    entries: Entry[]
    unfinished: boolean
    canContinue: boolean
  }
  const rows = buildRows(golden.entries, [], false, { unfinished: golden.unfinished, canContinue: golden.canContinue })

  it('leaves out the versions not shown and puts the switcher on the first message of the one shown', () => {
    expect(rows.map((r) => `${r.kind}:${r.key}`)).toEqual(['user:u1b', 'tool:a2:c1', 'assistant:a3', 'user:u3', 'error:x1', 'user:u4', 'stopped:s1'])
    expect(rows[0]).toMatchObject({ kind: 'user', editable: true, branch: { after: '', index: 2, count: 2 } })
    expect(rows.some((r) => 'text' in r && /Paris/.test(String(r.text)))).toBe(false)
  })

  it('says a failure in words and offers what applies', () => {
    const err = rows.find((r) => r.kind === 'error')!
    expect(err).toMatchObject({ problem: { title: "Can't reach the model server", settings: true }, latest: false, canContinue: false })
    const stop = rows.find((r) => r.kind === 'stopped')!
    expect(stop).toMatchObject({ partial: 'Roses are', latest: true, canContinue: true })
  })

  it('hands the tool card the size of a large result', () => {
    const tool = rows.find((r) => r.kind === 'tool')!
    expect(tool.kind === 'tool' && tool.result?.view?.large).toEqual({ size: 80000, head: 'row\nrow\nrow' })
  })
})

describe('buildRows: who answered, and what can be edited or regenerated', () => {
  const speakers = { analyst: { id: 'analyst', name: 'Mara', icon: '🔍', title: 'Product Analyst' } }
  const agent = { mode: 'agent', agentId: 'analyst' }

  it('names the agent once per reply, not on every message of it', () => {
    const rows = buildRows(
      [
        msg('u1', 'user', 'hi', { mode: 'agent' }),
        msg('a1', 'assistant', undefined, { ...agent, tool_calls: [call('c1', 'fs.list')] }),
        msg('t1', 'tool', '{}', { ...agent, tool_call_id: 'c1' }),
        msg('a2', 'assistant', 'Found it.', agent),
        msg('u2', 'user', 'and?', { mode: 'agent' }),
        msg('a3', 'assistant', 'More.', agent),
        msg('u3', 'user', 'chat now'),
        msg('a4', 'assistant', 'Plain.', { mode: 'chat' }),
        msg('a5', 'assistant', 'Unknown agent.', { mode: 'run', agentId: 'ghost', runId: 'r1' }),
      ],
      [],
      false,
      {},
      speakers,
    )
    const said = rows.map((r) => ('speaker' in r && r.speaker ? `${r.key}:${r.speaker.name}` : r.key))
    expect(said).toEqual(['u1', 'a1:c1:Mara', 'a2', 'u2', 'a3:Mara', 'u3', 'a4', 'a5:ghost'])
    expect(rows.find((r) => r.key === 'a4')).toMatchObject({ regenerable: true })
    expect(rows.find((r) => r.key === 'a5')).toMatchObject({ regenerable: false })
  })

  it('offers editing only for messages the user typed outside a run', () => {
    const rows = buildRows([msg('u1', 'user', 'hi'), runInput('u2', 'capture-idea', 'idea', { runId: 'r1' }), msg('u3', 'user', 'in a run', { mode: 'run', runId: 'r1' })])
    expect(rows.map((r) => r.kind === 'user' && r.editable)).toEqual([true, false, false])
  })

  it('puts a switcher row before a version that starts with a tool call', () => {
    const rows = buildRows([
      msg('u1', 'user', 'list'),
      msg('a1', 'assistant', undefined, { tool_calls: [call('c1', 'fs.list')], view: { kind: 'assistant', branch: { after: 'u1', index: 2, count: 2 } } }),
      msg('t1', 'tool', '{}', { tool_call_id: 'c1' }),
    ])
    expect(rows.map((r) => r.kind)).toEqual(['user', 'switcher', 'tool'])
    expect(rows[1]).toMatchObject({ branch: { index: 2, count: 2 } })
  })

  it('shows a stop as a stop, not as an error', () => {
    const stop = msg('s1', 'assistant', 'Half\n\nLLM_ERROR\n- code: LLM_ABORTED', {
      partType: 'error',
      view: { kind: 'stopped', text: 'Half', latest: true, continue: true, error: { code: 'LLM_ABORTED', message: 'stopped', retryable: true } },
    })
    const rows = buildRows([msg('u', 'user', 'q'), stop])
    expect(rows.map((r) => r.kind)).toEqual(['user', 'stopped'])
    expect(rows[1]).toMatchObject({ partial: 'Half', latest: true, canContinue: true })
  })
})

describe('the steps of a run', () => {
  const step = { title: 'Step 1 · Capture the idea', summary: "read the run's state, wrote idea-notes.md", calls: 2, node: 'capture-idea' }
  const entries: Entry[] = [
    runInput('u1', 'capture-idea', 'A grocery list.'),
    msg('a1', 'assistant', undefined, { runId: 'r1', agentId: 'analyst', mode: 'run', tool_calls: [call('c1', 'fs.read', '{"path":"@state/workflow.md"}')], view: { kind: 'assistant', step } }),
    msg('t1', 'tool', '{"ok":true}', { runId: 'r1', tool_call_id: 'c1', view: { kind: 'tool-result', inStep: 'a1' } }),
    msg('a2', 'assistant', undefined, { runId: 'r1', agentId: 'analyst', mode: 'run', tool_calls: [call('c2', 'fs.write', '{"path":"@project/artifacts/idea-notes.md"}')], view: { kind: 'assistant', inStep: 'a1' } }),
    msg('t2', 'tool', 'denied', { runId: 'r1', tool_call_id: 'c2', is_error: true, view: { kind: 'tool-result', inStep: 'a1' } }),
    msg('a3', 'assistant', 'I wrote the notes.', { runId: 'r1', agentId: 'analyst', mode: 'run' }),
    // a step whose first entry was not loaded: its calls stay cards
    msg('a4', 'assistant', undefined, { runId: 'r1', agentId: 'analyst', mode: 'run', tool_calls: [call('c4', 'fs.read')], view: { kind: 'assistant', inStep: 'gone' } }),
  ]

  it('are one row each, with the calls one click away and who worked on them', () => {
    const rows = buildRows(entries, [], false, {}, { analyst: { id: 'analyst', name: 'Mara', icon: '🔍', title: '' } })
    expect(rows.map((r) => `${r.kind}:${r.key}`)).toEqual(['user:u1', 'steps:steps:a1', 'assistant:a3', 'tool:a4:c4'])
    const s = rows[1]
    if (s.kind !== 'steps') throw new Error('not a step row')
    expect(s.step).toEqual(step)
    expect(s.calls.map((c) => [c.call.id, c.result?.id, c.status])).toEqual([
      ['c1', 't1', 'ok'],
      ['c2', 't2', 'error'],
    ])
    expect(s.speaker?.name).toBe('Mara')
    expect(rows[2].kind === 'assistant' && rows[2].speaker).toBeUndefined()
  })
})
