import type { Entry } from '../bridge'
import { failure, msg, runInput } from '../test/entries'
import { createFakeBridge } from '../test/fakeBridge'
import { applyEntries, createChatStore, lastUserText, usageFromPreview } from './chatStore'


/** Runs scheduled frames by hand. */
function frames() {
  const queue: (() => void)[] = []
  return { schedule: (fn: () => void) => void queue.push(fn), flush: () => queue.splice(0).forEach((f) => f()) }
}

function setup(entries: Entry[] = [], opts: Parameters<typeof createFakeBridge>[0] = {}) {
  const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Chat' }, entries }], ...opts })
  const f = frames()
  const store = createChatStore(fake.bridge, f.schedule)
  const stop = store.actions.start()
  return { fake, store, f, stop }
}

describe('chatStore', () => {
  it('opens a conversation at its end and pages backwards', async () => {
    const many = Array.from({ length: 700 }, (_, i) => msg(`m${i}`, i % 2 ? 'assistant' : 'user', `text ${i}`))
    const { store } = setup(many)
    await store.actions.open('c1')
    let s = store.getState()
    // a few screens first (firstPageSize), then pages of pageSize
    expect(s.entries).toHaveLength(100)
    expect(s.entries[99].id).toBe('m699')
    expect(s.hasMore).toBe(true)
    await vi.waitFor(() => expect(store.getState().usage).not.toBeNull()) // from the preview
    expect(await store.actions.loadOlder()).toBe(300)
    expect(await store.actions.loadOlder()).toBe(300)
    s = store.getState()
    expect(s.entries.map((e) => e.id)).toEqual(many.map((e) => e.id))
    expect(s.hasMore).toBe(false)
    expect(await store.actions.loadOlder()).toBe(0)
  })

  it('streams a reply: coalesced text, tool calls, then the persisted entries', async () => {
    const { fake, store, f, stop } = setup([msg('u0', 'user', 'earlier')])
    await store.actions.open('c1')
    expect(await store.actions.send('  list files  ')).toBe(true)
    expect(fake.sent[0]).toMatchObject({ conversationId: 'c1', text: 'list files', mode: 'chat' })
    expect(store.getState().streaming).toBe(true)

    fake.emit('llm:stream-start', { conversationId: 'c1', messageId: 'a1', mode: 'chat', turn: 0 })
    fake.emit('llm:stream-chunk', { conversationId: 'c1', messageId: 'a1', delta: 'Let ' })
    fake.emit('llm:stream-chunk', { conversationId: 'c1', messageId: 'a1', delta: 'me look' })
    fake.emit('llm:stream-chunk', { conversationId: 'other', messageId: 'x', delta: 'not ours' })
    expect(store.getState().live[0].text).toBe('') // waits for the frame
    f.flush()
    expect(store.getState().live[0].text).toBe('Let me look')

    fake.emit('llm:stream-tool-start', { conversationId: 'c1', messageId: 'a1', toolCallId: 'call1', toolName: 'fs.list', index: 0 })
    expect(store.getState().live[0].tools).toMatchObject([{ toolCallId: 'call1', status: 'running' }])
    fake.emit('llm:stream-tool-end', { conversationId: 'c1', messageId: 'a1', toolCallId: 'call1', toolName: 'fs.list', ok: true, durationMs: 12 })
    expect(store.getState().live[0].tools[0]).toMatchObject({ status: 'ok', durationMs: 12 })

    fake.append('c1', msg('a1', 'assistant', 'Let me look', { tool_calls: [{ id: 'call1', type: 'function', function: { name: 'fs.list', arguments: '{}' } }] }))
    fake.append('c1', msg('t1', 'tool', '{}', { tool_call_id: 'call1' }))
    fake.emit('llm:stream-end', { conversationId: 'c1', messageId: 'a1', toolCalls: 1 })
    fake.append('c1', msg('a2', 'assistant', 'Two files.'))
    fake.finish('c1')
    await vi.waitFor(() => expect(store.getState().streaming).toBe(false))
    await vi.waitFor(() => expect(store.getState().entries.map((e) => e.id)).toEqual(['u0', expect.any(String), 'a1', 't1', 'a2']))
    expect(store.getState().live).toEqual([])
    stop()
    expect(fake.listenerCount('llm:stream-chunk')).toBe(0)
  })

  it('knows whether the log ends where its entries end', async () => {
    const { fake, store } = setup([msg('u0', 'user', 'left without a reply')])
    expect(store.getState().settled).toBe(false)
    await store.actions.open('c1')
    expect(store.getState().settled).toBe(true)
    await store.actions.send('again')
    expect(store.getState()).toMatchObject({ streaming: true, settled: false })
    fake.append('c1', msg('a1', 'assistant', 'Answer.'))
    expect(store.getState()).toMatchObject({ streaming: true, settled: false }) // published during the reply
    fake.finish('c1')
    expect(store.getState()).toMatchObject({ streaming: false, settled: true })
    expect(store.getState().entries.at(-1)?.id).toBe('a1')
  })

  it('does not take a page read begun before a reply for one made after it', async () => {
    const { fake, store } = setup([msg('u0', 'user', 'left without a reply')])
    await store.actions.open('c1')
    expect(store.getState().settled).toBe(true)
    const stale = store.actions.reload() // reads while no reply runs yet
    expect(await store.actions.retry()).toBe(true)
    await stale
    expect(store.getState()).toMatchObject({ streaming: true, settled: false })
    // and entries published while a page is read are not lost
    const reading = store.actions.reload()
    fake.append('c1', msg('a1', 'assistant', 'Answer.'))
    await reading
    expect(store.getState().entries.at(-1)?.id).toBe('a1')
  })

  it('follows context:usage for the open conversation only', async () => {
    const { fake, store } = setup()
    await store.actions.open('c1')
    fake.emit('context:usage', { conversationId: 'c1', usedTokens: 850, totalBudget: 1000, usagePercent: 85, remaining: 150, status: 'compressing' })
    fake.emit('context:usage', { conversationId: 'c2', usedTokens: 1, totalBudget: 1000, usagePercent: 0.1, remaining: 999, status: 'normal' })
    expect(store.getState().usage).toMatchObject({ status: 'compressing', usagePercent: 85 })
    fake.emit('context:usage', { conversationId: 'c1', usedTokens: 400, totalBudget: 1000, usagePercent: 40, remaining: 600, status: 'normal' })
    expect(store.getState().usage).toMatchObject({ status: 'normal', usedTokens: 400 })
  })

  it('takes the usage from context:usage alone, not from the calls that end', async () => {
    const { fake, store } = setup()
    await store.actions.open('c1')
    const reported = { calls: 1, promptTokens: 1000, completionTokens: 20, totalTokens: 1020, cachedTokens: 0, last: { promptTokens: 1000, completionTokens: 20, totalTokens: 1020, cachedTokens: 0 } }
    fake.emit('context:usage', { conversationId: 'c1', usedTokens: 1100, totalBudget: 8000, usagePercent: 13.75, remaining: 6900, status: 'normal', reported })
    fake.emit('llm:stream-end', { conversationId: 'c1', messageId: 'a1', toolCalls: 0, usage: { promptTokens: 1100, completionTokens: 30, totalTokens: 1130, cachedTokens: 960 } })
    expect(store.getState().usage?.reported).toEqual(reported)
  })

  it('continue sends "continue"; retry answers the last message again (a run gets it again)', async () => {
    const err = failure('e1', 'part', 'LLM_TIMEOUT', 'no data', { latest: true })
    const { fake, store } = setup([msg('u1', 'user', 'first question'), msg('u2', 'user', 'second question'), err])
    await store.actions.open('c1')
    await store.actions.continueReply()
    expect(fake.sent.at(-1)).toMatchObject({ text: 'continue' })
    fake.finish('c1')
    await vi.waitFor(() => expect(store.getState().streaming).toBe(false))
    const users = () => store.getState().entries.filter((e) => e.role === 'user').length
    const before = users()
    expect(await store.actions.retry()).toBe(true)
    expect(fake.sent.at(-1)).toMatchObject({ conversationId: 'c1', text: '', mode: 'chat', retry: true })
    expect(store.getState()).toMatchObject({ streaming: true, settled: false })
    fake.finish('c1')
    await vi.waitFor(() => expect(store.getState().streaming).toBe(false))
    await vi.waitFor(() => expect(store.getState().entries.find((e) => e.id === 'e1')?.includeInContext).toBe(false))
    expect(users()).toBe(before) // nothing was sent again

    await store.actions.setMode('run')
    expect(await store.actions.retry()).toBe(true)
    expect(fake.sent.at(-1)).toMatchObject({ text: 'continue', mode: 'run' })
    expect(fake.sent.at(-1)?.retry).toBeUndefined()
    expect(lastUserText([msg('u', 'user', 'a'), msg('m', 'user', 'meta', { is_meta: true }), msg('x', 'assistant', 'b')])).toBe('a')
    expect(lastUserText([runInput('u', 'capture-idea', 'my idea')])).toBe('my idea')
  })

  it('refuses to send while a reply runs and reports send errors', async () => {
    const { store } = setup([], { llmConfigured: false })
    await store.actions.open('c1')
    expect(await store.actions.send('hi')).toBe(false)
    expect(store.getState().error?.code).toBe('E_LLM_NOT_CONFIGURED')
    expect(store.getState()).toMatchObject({ streaming: false, settled: true }) // nothing was written
  })

  it('stop and mode switches go through the bridge', async () => {
    const { fake, store } = setup()
    await store.actions.open('c1')
    await store.actions.send('hi')
    await store.actions.stop()
    expect(fake.bridge.chat.stop).toHaveBeenCalledWith('c1')
    await store.actions.setMode('run')
    expect(fake.bridge.chat.setMode).toHaveBeenCalledWith('c1', 'run', '')
    expect(store.getState().mode).toBe('run')
    expect(store.getState().meta?.activeType).toBe('workflow')
  })
})

describe('applyEntries', () => {
  const e = (id: string, text = id) => msg(id, 'user', text)
  it('replaces entries of known ids and appends new ones', () => {
    const current = [e('a'), e('b'), e('c')]
    expect(applyEntries(current, [e('b', 'B!'), e('d')]).map((x) => x.content)).toEqual(['a', 'B!', 'c', 'd'])
    expect(current.map((x) => x.content)).toEqual(['a', 'b', 'c'])
    expect(applyEntries(current, [])).toBe(current)
  })
})

describe('usageFromPreview', () => {
  it('derives the usage of a preview', () => {
    const u = usageFromPreview('c1', {
      usage: { conversationId: 'c1', usedTokens: 4500, totalBudget: 5000, usagePercent: 90, remaining: 500, status: 'critical' },
    } as never)
    expect(u).toEqual({ conversationId: 'c1', usedTokens: 4500, totalBudget: 5000, usagePercent: 90, remaining: 500, status: 'critical' })
  })
})

describe('chatStore: versions, export, and how a conversation ends', () => {
  it('reads how the page says the conversation ends, and who answered', async () => {
    const agents = { analyst: { id: 'analyst', name: 'Mara', title: 'Analyst', icon: '🔍', description: '' } }
    const { store } = setup([], { conversations: [{ meta: { id: 'c1' }, entries: [msg('u1', 'user', 'hi')], awaiting: true, agents }] })
    await store.actions.open('c1')
    expect(store.getState()).toMatchObject({ awaiting: true, unfinished: false, canContinue: false, speakers: agents })
  })

  it('edits: the editor holds a draft; sending starts the reply of the new version', async () => {
    const { fake, store } = setup([msg('u1', 'user', 'first'), msg('a1', 'assistant', 'one')])
    await store.actions.open('c1')
    store.actions.startEdit('u1', 'first')
    store.actions.setEditDraft('first, better')
    expect(await store.actions.submitEdit()).toBe(true)
    expect(fake.branchOps).toEqual([{ op: 'edit', conversationId: 'c1', messageId: 'u1', text: 'first, better' }])
    expect(store.getState()).toMatchObject({ editing: null, streaming: true })
    // refused while a reply runs, and the draft stays
    store.actions.startEdit('u1', 'again')
    expect(await store.actions.submitEdit()).toBe(false)
    expect(store.getState().editing).toEqual({ id: 'u1', text: 'again' })
  })

  it('after a new version is recorded, reads the whole window again instead of merging the tail', async () => {
    const many = Array.from({ length: 200 }, (_, i) => msg(`m${i}`, i % 2 ? 'assistant' : 'user', `text ${i}`))
    const { fake, store } = setup(many)
    await store.actions.open('c1')
    // a new answer to m0: m1 and everything after it leave the version
    // shown, also entries older than the tail the store would merge
    expect(await store.actions.regenerate('m1')).toBe(true)
    fake.finish('c1')
    await vi.waitFor(() => expect(store.getState().entries.filter((e) => !e.view?.inactive).map((e) => e.id)).toEqual(['m0', expect.stringMatching(/^evt-/)]))
    expect(vi.mocked(fake.bridge.conversations.load).mock.lastCall?.[1]).toBeGreaterThanOrEqual(201)
  })

  it('switches versions and reloads; refused while a reply runs', async () => {
    const { fake, store } = setup([msg('u1', 'user', 'q'), msg('a1', 'assistant', 'a')])
    await store.actions.open('c1')
    expect(await store.actions.switchBranch('u1', 0)).toBe(true)
    expect(fake.branchOps.at(-1)).toEqual({ op: 'switch', conversationId: 'c1', after: 'u1', index: 0 })
    expect(store.getState().entries.at(-1)).toMatchObject({ event: 'branch_switch' })
    fake.streaming.add('c1')
    await store.actions.reload()
    expect(await store.actions.switchBranch('u1', 1)).toBe(false)
  })

  it('exports to a file and says where; a cancelled dialog says nothing', async () => {
    const { fake, store } = setup([msg('u1', 'user', 'q')])
    await store.actions.open('c1')
    expect(await store.actions.exportToFile('json')).toBe('/home/test/export.json')
    expect(store.getState().notice).toBe('Saved to /home/test/export.json')
    store.actions.dismissNotice()
    fake.setNextSave(null)
    expect(await store.actions.exportToFile('md')).toBeNull()
    expect(store.getState().notice).toBeNull()
  })

  it('Retry in run mode sends the newest message of the version shown', () => {
    const entries = [runInput('u1', 'n', 'first'), { ...runInput('u2', 'n', 'hidden'), view: { kind: 'run-input', text: 'hidden', inactive: true } }]
    expect(lastUserText(entries)).toBe('first')
  })
})

describe('chatStore: streamed text', () => {
  afterEach(() => vi.useRealTimers())

  it('updates the text at most once per interval, however fast the deltas come', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
    const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Chat' }, entries: [] }] })
    const f = frames()
    const store = createChatStore(fake.bridge, f.schedule, 50)
    const stop = store.actions.start()
    await store.actions.open('c1')
    await store.actions.send('hi')
    fake.emit('llm:stream-start', { conversationId: 'c1', messageId: 'a1', mode: 'chat', turn: 0 })
    const chunk = (delta: string) => fake.emit('llm:stream-chunk', { conversationId: 'c1', messageId: 'a1', delta })
    chunk('one ')
    f.flush()
    expect(store.getState().live[0].text).toBe('one ')
    chunk('two ')
    chunk('three ')
    f.flush() // too soon: nothing is drawn yet
    expect(store.getState().live[0].text).toBe('one ')
    vi.advanceTimersByTime(50)
    f.flush()
    expect(store.getState().live[0].text).toBe('one two three ')
    // the end of the stream draws what is left at once
    chunk('four')
    fake.emit('llm:stream-end', { conversationId: 'c1', messageId: 'a1', toolCalls: 0 })
    expect(store.getState().live[0].text).toBe('one two three four')
    stop()
  })
})
