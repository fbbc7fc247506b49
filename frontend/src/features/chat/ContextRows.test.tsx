import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { ContextPreview, Entry } from '../../bridge'
import { evt, msg, runInput } from '../../test/entries'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { ChatView } from './ChatView'

// jsdom has no layout: give elements a size so the virtual list renders rows.
const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})

function renderChat(entries: Entry[]) {
  const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Offsite' }, entries }] })
  const r = renderWithStores(<ChatView conversationId="c1" />, fake.bridge)
  r.stores.chat.actions.start() // the workspace follows the conversation's events
  return { fake, ...r }
}

const history = (): Entry[] => [
  msg('u1', 'user', 'Plan the offsite. The budget must never exceed 4711 EUR.'),
  msg('a1', 'assistant', 'A venue by the lake.'),
  msg('u2', 'user', 'What about the dates?'),
  msg('a2', 'assistant', 'The first week of June.'),
  msg('u3', 'user', 'And the food?'),
]

describe('/compact in the composer', () => {
  it('compacts with its focus, shows progress and the outcome, and the card with the summary and the pins', async () => {
    const { fake } = renderChat(history())
    await screen.findAllByTestId('msg-user')
    // pin the first message: the card lists it
    const first = screen.getAllByTestId('msg-user')[0]
    await userEvent.click(within(first).getByTestId('msg-pin'))
    expect(fake.bridge.context.pin).toHaveBeenCalledWith('c1', 'u1')
    await vi.waitFor(() => expect(within(screen.getAllByTestId('msg-user')[0]).getByTestId('msg-pinned')).toBeInTheDocument())

    const input = screen.getByTestId('composer-input')
    await userEvent.type(input, '/comp')
    expect(screen.getByTestId('compaction-status').dataset.kind).toBe('hint')
    await userEvent.type(input, 'act the budget{Enter}')
    expect(fake.compactions).toEqual([{ conversationId: 'c1', focus: 'the budget' }])
    expect(fake.sent).toEqual([]) // not sent to the model
    expect((input as HTMLTextAreaElement).value).toBe('')
    await vi.waitFor(() => expect(screen.getByTestId('compaction-status')).toHaveTextContent('Compacted 4 messages: 5.0k → 2.0k tokens'))
    const card = await screen.findByTestId('event-compaction')
    expect(within(card).getByTestId('compaction-title')).toHaveTextContent('Compacted 4 messages')
    expect(card).toHaveTextContent('you asked, focusing on “the budget”')
    expect(within(card).queryByTestId('compaction-body')).toBeNull()
    await userEvent.click(within(card).getByTestId('compaction-toggle'))
    expect(within(card).getByTestId('compaction-summary')).toHaveTextContent('Plan the offsite')
    expect(within(card).getAllByTestId('compaction-pin').map((p) => p.textContent)).toEqual(['You: Plan the offsite. The budget must never exceed 4711 EUR.'])
  })

  it('says when there is nothing to compact, and why it cannot while an answer is written', async () => {
    const { fake, stores } = renderChat([msg('u1', 'user', 'Hello')])
    await screen.findByTestId('msg-user')
    await userEvent.type(screen.getByTestId('composer-input'), '/compact{Enter}')
    await vi.waitFor(() => expect(screen.getByTestId('compaction-status')).toHaveTextContent('Nothing to compact yet'))
    expect(screen.queryByTestId('event-compaction')).toBeNull()

    fake.streaming.add('c1')
    stores.chat.setState({ streaming: false }) // the window has not heard of the reply yet
    await userEvent.type(screen.getByTestId('composer-input'), '/compact{Enter}')
    await vi.waitFor(() => expect(screen.getByTestId('compaction-status').dataset.kind).toBe('error'))
    expect(screen.getByTestId('compaction-status')).toHaveTextContent('cannot be compacted while an answer is being written')
    expect(screen.getByTestId('compaction-status')).not.toHaveTextContent('E_BUSY')
  })
})

describe('pins', () => {
  it('pins and unpins a message of either side, the pinned state always shown', async () => {
    const { fake } = renderChat(history())
    const answer = (await screen.findAllByTestId('msg-assistant'))[0]
    expect(within(answer).queryByTestId('msg-pinned')).toBeNull()
    await userEvent.click(within(answer).getByTestId('msg-pin'))
    await vi.waitFor(() => expect(within(screen.getAllByTestId('msg-assistant')[0]).getByTestId('msg-pinned')).toHaveTextContent('Pinned'))
    const pin = within(screen.getAllByTestId('msg-assistant')[0]).getByTestId('msg-pin')
    expect(pin).toHaveAccessibleName('Pin')
    expect(pin).toHaveAttribute('aria-pressed', 'true')
    await userEvent.click(pin)
    expect(fake.bridge.context.unpin).toHaveBeenCalledWith('c1', 'a1')
    await vi.waitFor(() => expect(within(screen.getAllByTestId('msg-assistant')[0]).queryByTestId('msg-pinned')).toBeNull())
  })
})

describe('the steps of a run', () => {
  it('are one row in words; the raw calls are one click away', async () => {
    const step = { title: 'Step 1 · Capture the idea', summary: "read the run's state, wrote idea-notes.md, moved to “Is the idea clear enough?”", calls: 2, node: 'capture-idea' }
    const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } })
    renderChat([
      runInput('u1', 'capture-idea', 'A grocery list', { runId: 'r1' }),
      msg('a1', 'assistant', undefined, { runId: 'r1', mode: 'run', tool_calls: [call('c1', 'fs.read', '{"path":"@state/workflow.md"}')], view: { kind: 'assistant', step, calls: { c1: "read the run's state" } } }),
      msg('t1', 'tool', '{"ok":true,"content":"---"}', { runId: 'r1', tool_call_id: 'c1', view: { kind: 'tool-result', inStep: 'a1' } }),
      msg('a2', 'assistant', undefined, { runId: 'r1', mode: 'run', tool_calls: [call('c2', 'fs.write', '{"path":"@project/artifacts/idea-notes.md"}')], view: { kind: 'assistant', inStep: 'a1', calls: { c2: 'wrote idea-notes.md' } } }),
      msg('t2', 'tool', '{"ok":true}', { runId: 'r1', tool_call_id: 'c2', view: { kind: 'tool-result', inStep: 'a1' } }),
      evt('e1', 'run_started', { workflowId: 'write-brief' }),
    ])
    const row = await screen.findByTestId('step-row')
    expect(within(row).getByTestId('step-title')).toHaveTextContent('Step 1 · Capture the idea')
    expect(within(row).getByTestId('step-summary')).toHaveTextContent('wrote idea-notes.md')
    expect(row).not.toHaveTextContent(/@state|fs\.read|capture-idea/)
    expect(screen.queryByTestId('tool-card')).toBeNull()
    await userEvent.click(within(row).getByTestId('step-toggle'))
    expect(within(row).getAllByTestId('tool-card').map((c) => c.dataset.tool)).toEqual(['fs.read', 'fs.write'])
    // each call in words; its name and arguments under the card's details
    expect(within(row).getAllByTestId('tool-words').map((w) => w.textContent)).toEqual(["Read the run's state", 'Wrote artifacts/idea-notes.md'])
    expect(within(row).getAllByTestId('tool-title').map((w) => w.textContent)).toEqual(['Read file', 'Write file'])
    await userEvent.click(within(row).getAllByTestId('tool-toggle')[0])
    expect(within(row).getByTestId('tool-body')).toHaveTextContent(/fs\.read · call c1.*@state\/workflow\.md/)
    // the divider says a run started without the workflow's id
    expect(screen.getByTestId('event-run_started')).not.toHaveTextContent('write-brief')
  })
})

describe('the context inspector', () => {
  it('shows the summary, the pins, what was recalled and why, and the compactions, with the meter’s number', async () => {
    const { fake } = renderChat(history())
    const base = await fake.bridge.chat.preview('c1', 'chat')
    const preview: ContextPreview = {
      ...base,
      conversation: {
        ...base.conversation,
        compacted: 212,
        summary: { id: 's1', tokens: 420, text: 'CONVERSATION_SUMMARY\n- #u1 user: budget', screen: '**Requirements and decisions**\n\n- **You:** the budget is 4711 EUR' },
        pins: [{ id: 'u1', role: 'user', kind: 'pin', text: 'Plan the offsite. The budget must never exceed 4711 EUR.', inHistory: false }],
        recalled: [{ id: 'u9', role: 'user', text: 'The caterer is Lakeside Foods.', score: 0.03, why: 'score 0.030: words food, caterer (rank 1)', terms: ['food', 'caterer'] }],
        compactions: [{ eventId: 'e1', from: 'u1', to: 'a99', count: 212, reason: 'manual' }],
      },
      messages: [...base.messages, { index: 9, role: 'tool', content: 'TOOL_RESULT_PREVIEW (78563 bytes; truncated)\npath: @state/logs/tool-results/c1/t1.json\n{"ok":true', kind: 'history', tokens: 300, reason: 'kept' }],
    }
    vi.mocked(fake.bridge.chat.preview).mockResolvedValue(preview)
    await userEvent.click(screen.getByTestId('context-meter'))
    const body = await screen.findByTestId('inspector-body')
    expect(within(body).getByTestId('inspector-summary-text')).toHaveTextContent('replaces 212 messages')
    expect(within(body).getByTestId('inspector-summary-text')).toHaveTextContent('You: the budget is 4711 EUR')
    expect(within(body).getByTestId('inspector-summary-text')).not.toHaveTextContent('CONVERSATION_SUMMARY')
    expect(within(body).getByTestId('inspector-pin')).toHaveTextContent('You: Plan the offsite')
    expect(within(body).getByTestId('inspector-pin')).toHaveTextContent('quoted word for word')
    expect(within(body).getByTestId('inspector-recall-why')).toHaveTextContent('Recalled because it shares “food”, “caterer” with your newest message.')
    expect(within(body).getByTestId('inspector-compaction')).toHaveTextContent('212 messages · you asked')
    expect(within(body).getByTestId('inspector-messages')).not.toHaveTextContent(/TOOL_RESULT_PREVIEW|@state/)
    expect(within(body).getByTestId('inspector-messages')).toHaveTextContent('The beginning of a 77 KB result')
    // one number: the meter shows what the inspector shows
    const meter = screen.getByTestId('context-meter')
    expect(meter.dataset.used).toBe(String(preview.usage.usedTokens))
    expect(within(body).getByTestId('inspector-used').dataset.used).toBe(String(preview.usage.usedTokens))
  })

  it('shows the prompt cache hits the server reported in the meter and the inspector', async () => {
    const { fake } = renderChat(history())
    const base = await fake.bridge.chat.preview('c1', 'chat')
    const last = { promptTokens: 2006, completionTokens: 25, totalTokens: 2031, cachedTokens: 1920 }
    const preview: ContextPreview = { ...base, usage: { ...base.usage, reported: { calls: 2, promptTokens: 4000, completionTokens: 50, totalTokens: 4050, cachedTokens: 1920, last } } }
    vi.mocked(fake.bridge.chat.preview).mockResolvedValue(preview)
    await userEvent.click(screen.getByTestId('context-meter'))
    const body = await screen.findByTestId('inspector-body')
    expect(within(body).getByTestId('inspector-cache')).toHaveTextContent("the last request read 1,920 of 2,006 prompt tokens from the server's cache (96%)")
    const meter = screen.getByTestId('context-meter')
    await vi.waitFor(() => expect(meter.dataset.cached).toBe('1920'))
    expect(meter.title).toContain('this conversation 1,920 of 4,000 (48%) over 2 requests')
  })
})
