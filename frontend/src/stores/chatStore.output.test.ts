import { msg } from '../test/entries'
import { createFakeBridge } from '../test/fakeBridge'
import { appendOutput, createChatStore, liveOutputLimit } from './chatStore'

describe('appendOutput', () => {
  const cases: { name: string; steps: { data: string; skipped?: number; done?: boolean }[]; limit?: number; want: { text: string; dropped: number; done: boolean } }[] = [
    { name: 'pieces add up', steps: [{ data: 'a\n' }, { data: 'b' }, { data: '\n', done: true }], want: { text: 'a\nb\n', dropped: 0, done: true } },
    {
      name: 'output sent too fast is said where it was left out',
      steps: [{ data: 'start' }, { data: 'end\n', skipped: 5000 }],
      want: { text: 'start\n… 5000 bytes not shown …\nend\n', dropped: 0, done: false },
    },
    {
      name: 'the newest output is kept, from the start of a line',
      limit: 10,
      steps: [{ data: 'line one\nline two\n' }, { data: 'three\n' }],
      want: { text: 'three\n', dropped: 18, done: false },
    },
    {
      name: 'without a line end nearby it cuts at the limit',
      limit: 4,
      steps: [{ data: 'abcdefgh' }],
      want: { text: 'efgh', dropped: 4, done: false },
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      let out: ReturnType<typeof appendOutput> | undefined
      for (const s of c.steps) out = appendOutput(out, s, c.limit)
      expect(out).toEqual(c.want)
    })
  }

  it('never keeps more than the limit', () => {
    let out: ReturnType<typeof appendOutput> | undefined
    const chunk = `${'x'.repeat(999)}\n`
    for (let i = 0; i < 600; i++) out = appendOutput(out, { data: chunk })
    expect(out!.text.length).toBeLessThanOrEqual(liveOutputLimit)
    expect(out!.text.length + out!.dropped).toBe(600 * 1000)
    expect(out!.text.startsWith('x')).toBe(true)
  })
})

describe('chatStore: live command output', () => {
  it('keeps the output of the open conversation by call until its result is read', async () => {
    const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Chat' }, entries: [msg('u0', 'user', 'run it')] }] })
    const store = createChatStore(fake.bridge, (fn) => fn())
    const stop = store.actions.start()
    await store.actions.open('c1')
    fake.emit('tool:output', { conversationId: 'c1', toolCallId: 'sh1', toolName: 'shell.run', data: 'line 1\n' })
    fake.emit('tool:output', { conversationId: 'other', toolCallId: 'sh9', toolName: 'shell.run', data: 'not ours\n' })
    fake.emit('tool:output', { conversationId: 'c1', toolCallId: 'sh1', toolName: 'shell.run', data: '\x1b[31mline 2\x1b[0m\n' })
    expect(store.getState().toolOutput).toEqual({ sh1: { text: 'line 1\n\x1b[31mline 2\x1b[0m\n', dropped: 0, done: false } })
    fake.emit('tool:output', { conversationId: 'c1', toolCallId: 'sh1', toolName: 'shell.run', data: '', done: true })
    expect(store.getState().toolOutput.sh1.done).toBe(true)

    // The result is read: the card shows it, the live output goes.
    fake.append('c1', msg('a1', 'assistant', '', { tool_calls: [{ id: 'sh1', type: 'function', function: { name: 'shell.run', arguments: '{"command":"x"}' } }] }))
    expect(store.getState().toolOutput.sh1).toBeDefined()
    fake.append('c1', msg('t1', 'tool', '{"ok":true}', { tool_call_id: 'sh1' }))
    expect(store.getState().toolOutput).toEqual({})

    // Another conversation starts with none.
    fake.emit('tool:output', { conversationId: 'c1', toolCallId: 'sh2', toolName: 'shell.run', data: 'x' })
    await store.actions.open(null)
    expect(store.getState().toolOutput).toEqual({})
    stop()
  })
})
