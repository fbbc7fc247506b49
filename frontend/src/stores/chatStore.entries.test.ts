import type { Entry } from '../bridge'
import { msg } from '../test/entries'
import { createFakeBridge } from '../test/fakeBridge'
import { createChatStore } from './chatStore'
import { createContextStore } from './contextStore'

const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } })

/** A reply reaches the window once: as it streams, then as the entries the
 * store wrote, appended and updated by id. */
describe('chatStore: what the store publishes', () => {
  function setup(entries: Entry[]) {
    const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Plans' }, entries }] })
    const chat = createChatStore(fake.bridge, (fn) => fn(), 0)
    const context = createContextStore(fake.bridge, chat)
    const stop = chat.actions.start()
    const load = vi.mocked(fake.bridge.conversations.load)
    /** The page reads asked for so far. */
    const reads = () => load.mock.calls.length
    /** Fails unless the store holds what a read of the page gives now. */
    const sameAsRead = async () => {
      const page = await fake.bridge.conversations.load('c1', 300)
      load.mock.calls.pop() // the test's own read
      const s = chat.getState()
      expect(s.entries).toEqual(page.entries)
      expect({ meta: s.meta, unfinished: s.unfinished, awaiting: s.awaiting, canContinue: s.canContinue, streaming: s.streaming, settled: s.settled }).toEqual({
        meta: page.conversation,
        unfinished: !!page.unfinished,
        awaiting: !!page.awaiting,
        canContinue: !!page.canContinue,
        streaming: page.streaming,
        settled: !page.streaming,
      })
    }
    return { fake, chat, context, stop, reads, sameAsRead }
  }

  it('a reply with tool calls, an edit and a compaction: no page read after the reply, the state of a fresh read', async () => {
    const { fake, chat, context, stop, reads, sameAsRead } = setup([msg('u0', 'user', 'What is planned?'), msg('a0', 'assistant', 'Nothing yet.')])
    await chat.actions.open('c1')
    const afterOpen = reads()

    // The reply: one call with two tool calls, their results, then the answer.
    expect(await chat.actions.send('Read the notes and the list')).toBe(true)
    fake.emit('llm:stream-start', { conversationId: 'c1', messageId: 'a1', mode: 'chat', turn: 0 })
    fake.emit('llm:stream-chunk', { conversationId: 'c1', messageId: 'a1', delta: 'Reading both.' })
    fake.emit('llm:stream-tool-start', { conversationId: 'c1', messageId: 'a1', toolCallId: 'r1', toolName: 'fs.read', index: 0 })
    fake.emit('llm:stream-tool-start', { conversationId: 'c1', messageId: 'a1', toolCallId: 'r2', toolName: 'fs.read', index: 1 })
    expect(chat.getState().live[0]).toMatchObject({ text: 'Reading both.', tools: [{ toolCallId: 'r1', status: 'running' }, { toolCallId: 'r2', status: 'running' }] })
    fake.append('c1', msg('a1', 'assistant', 'Reading both.', { tool_calls: [call('r1', 'fs.read', '{"path":"notes.md"}'), call('r2', 'fs.read', '{"path":"list.md"}')] }))
    // the call's message is stored: it shows while its tools run
    expect(chat.getState().entries.at(-1)?.id).toBe('a1')
    fake.emit('llm:stream-tool-end', { conversationId: 'c1', messageId: 'a1', toolCallId: 'r1', toolName: 'fs.read', ok: true, durationMs: 3, resultMessageId: 't1' })
    fake.append('c1', msg('t1', 'tool', 'ship on friday', { tool_call_id: 'r1', tool_name: 'fs.read' }))
    fake.emit('llm:stream-tool-end', { conversationId: 'c1', messageId: 'a1', toolCallId: 'r2', toolName: 'fs.read', ok: false, durationMs: 2, resultMessageId: 't2', error: { code: 'E_NOT_FOUND', message: 'list.md does not exist' } })
    expect(chat.getState().live[0].tools.map((t) => t.status)).toEqual(['ok', 'error'])
    fake.append('c1', msg('t2', 'tool', '{"ok":false}', { tool_call_id: 'r2', tool_name: 'fs.read', is_error: true }))
    fake.emit('llm:stream-end', { conversationId: 'c1', messageId: 'a1', toolCalls: 2 })
    expect(chat.getState().live.map((c) => c.messageId)).toEqual([]) // stored: shown from the entries
    fake.emit('llm:stream-start', { conversationId: 'c1', messageId: 'a2', mode: 'chat', turn: 1 })
    fake.emit('llm:stream-chunk', { conversationId: 'c1', messageId: 'a2', delta: 'Ship on friday.' })
    fake.emit('llm:stream-end', { conversationId: 'c1', messageId: 'a2', toolCalls: 0 })
    expect(chat.getState().live).toMatchObject([{ messageId: 'a2', ended: true }])
    fake.append('c1', msg('a2', 'assistant', 'Ship on friday.'))
    // a new version of a stored entry replaces it in place
    fake.update('c1', msg('t1', 'tool', 'ship on friday (read again)', { tool_call_id: 'r1', tool_name: 'fs.read' }))
    fake.finish('c1')
    expect(chat.getState()).toMatchObject({ streaming: false, settled: true, live: [] })
    expect(chat.getState().entries.map((e) => e.id)).toEqual(['u0', 'a0', expect.stringMatching(/^msg-/), 'a1', 't1', 't2', 'a2'])
    expect(reads()).toBe(afterOpen)
    await sameAsRead()

    // An edit makes a new version: the page is read again.
    chat.actions.startEdit('u0', 'What is planned for friday?')
    expect(await chat.actions.submitEdit()).toBe(true)
    await vi.waitFor(() => expect(reads()).toBe(afterOpen + 1))
    fake.append('c1', msg('a3', 'assistant', 'The release.'))
    fake.finish('c1')
    expect(chat.getState().entries.at(-1)?.id).toBe('a3')
    await sameAsRead()

    // A compaction: the compacted messages, its event and the summary come
    // published, without a read.
    const afterEdit = reads()
    const outcome = await context.actions.compact('')
    expect(outcome?.result.compactedMessages).toBeGreaterThan(0)
    expect(reads()).toBe(afterEdit)
    expect(chat.getState().entries.some((e) => e.event === 'compaction')).toBe(true)
    await sameAsRead()
    stop()
    expect(fake.listenerCount('conversation:entries')).toBe(0)
  })

  it('a reply started elsewhere (a run turn, an answer handed back) unsettles the end until its own end is published', async () => {
    const { fake, chat, reads } = setup([msg('u0', 'user', 'left without a reply')])
    await chat.actions.open('c1')
    const n = reads()
    expect(chat.getState()).toMatchObject({ settled: true, streaming: false })
    fake.streaming.add('c1')
    fake.emit('conversation:changed', { conversationId: 'c1', kind: 'updated', streaming: true })
    expect(chat.getState()).toMatchObject({ settled: false, streaming: true })
    fake.append('c1', msg('a1', 'assistant', 'Answered.'))
    expect(chat.getState().settled).toBe(false)
    fake.finish('c1')
    expect(chat.getState()).toMatchObject({ settled: true, streaming: false })
    expect(chat.getState().entries.at(-1)?.id).toBe('a1')
    expect(reads()).toBe(n)
  })

  it('ignores what is published for another conversation, and reads the page when the log changed on disk', async () => {
    const { fake, chat, reads } = setup([msg('u0', 'user', 'hi')])
    await chat.actions.open('c1')
    const before = chat.getState().entries
    fake.emit('conversation:entries', { conversationId: 'c2', conversation: chat.getState().meta!, entries: [msg('x', 'user', 'not ours')], settled: true, unfinished: false, awaiting: false, canContinue: false, agents: {} })
    expect(chat.getState().entries).toBe(before)
    const n = reads()
    fake.emit('conversation:changed', { conversationId: 'c1', kind: 'updated', external: true })
    await vi.waitFor(() => expect(reads()).toBe(n + 1))
  })
})
