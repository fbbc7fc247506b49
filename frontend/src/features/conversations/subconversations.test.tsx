import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { Entry } from '../../bridge'
import { msg } from '../../test/entries'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { App } from '../../App'

const project = { id: 'p', name: 'alpha', root: '/home/me/alpha', dataDir: '/home/x/projects/p', activePackageId: '' }

const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})

/** A parent whose conv.create call handed the turn to "Hotels". */
const parentEntries = (status: string, answer = ''): Entry[] => [
  msg('u1', 'user', 'Plan a weekend in Lyon'),
  msg('a1', 'assistant', 'Let me ask a helper.', {
    tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'conv.create', arguments: '{"user_instruction":"Find hotels","title":"Hotels"}' } }],
  }),
  msg('t1', 'tool', JSON.stringify({ ok: status === 'completed', status, conversation_id: 'h', last_assistant_message: answer }), {
    tool_call_id: 'call-1',
    tool_name: 'conv.create',
    view: { kind: 'tool-result', handover: { conversationId: 'h', title: 'Hotels', status, answer } },
  }),
]

function render(opts: { status?: string; answer?: string; waiting?: boolean } = {}) {
  const fake = createFakeBridge({
    folders: ['/home/me/alpha'],
    current: project,
    conversations: [
      {
        meta: { id: 'p', title: 'Plan a weekend', lastActiveAt: '2026-06-01T10:00:00Z', createdAt: '2026-06-01T09:00:00Z' },
        entries: parentEntries(opts.status ?? 'completed', opts.answer ?? 'Hotel Bellecour'),
        waitingFor: opts.waiting ? { conversationId: 'h', title: 'Hotels', tool: 'conv.create', answering: true } : undefined,
      },
      {
        meta: {
          id: 'h',
          title: 'Hotels',
          parentId: 'p',
          origin: { conversationId: 'p', toolCallId: 'call-1' },
          lastActiveAt: '2026-06-01T10:01:00Z',
          createdAt: '2026-06-01T10:00:30Z',
        },
        entries: [msg('hu', 'user', 'Find hotels'), msg('ha', 'assistant', 'Hotel Bellecour')],
      },
      { meta: { id: 'o', title: 'Older chat', lastActiveAt: '2026-05-01T00:00:00Z' } },
    ],
  })
  renderWithStores(<App />, fake.bridge)
  return fake
}

const rows = async () =>
  (await screen.findAllByTestId('conv-item')).map((el) => `${el.getAttribute('data-depth')}:${within(el).getByTestId('conv-title').textContent}`)

describe('conversations created by the model', () => {
  it('sit under the conversation that created them, in a tree that folds', async () => {
    render()
    expect(await rows()).toEqual(['0:Plan a weekend', '1:Hotels', '0:Older chat'])
    const parent = screen.getAllByTestId('conv-item')[0]
    await userEvent.click(within(parent).getByTestId('conv-twisty'))
    expect(await rows()).toEqual(['0:Plan a weekend', '0:Older chat'])
    expect(screen.getAllByTestId('conv-item')[0]).toHaveTextContent('1 sub-conversation')
    await userEvent.click(within(screen.getAllByTestId('conv-item')[0]).getByTestId('conv-twisty'))
    expect(await rows()).toEqual(['0:Plan a weekend', '1:Hotels', '0:Older chat'])
  })

  it('say who is answering, live', async () => {
    const fake = render()
    await rows()
    act(() => fake.emit('task:started', { conversationId: 'h', taskId: 't', kind: 'chat', title: 'Hotels', tool: 'conv.create', parentId: 'p', depth: 1 }))
    const child = screen.getAllByTestId('conv-item')[1]
    expect(within(child).getByTestId('conv-status')).toHaveTextContent('answering')
    act(() => fake.emit('task:complete', { conversationId: 'h', taskId: 't', kind: 'chat', title: 'Hotels', parentId: 'p' }))
    expect(within(screen.getAllByTestId('conv-item')[1]).queryByTestId('conv-status')).toBeNull()
  })

  it('show in the parent as the call that created them, with the answer and a way there and back', async () => {
    render()
    await userEvent.click(within((await screen.findAllByTestId('conv-item'))[0]).getByTestId('conv-open'))
    const box = await screen.findByTestId('handover')
    expect(box).toHaveAttribute('data-status', 'completed')
    expect(box).toHaveTextContent('New conversation')
    expect(box).toHaveTextContent('“Hotels”')
    expect(within(box).getByTestId('handover-status')).toHaveTextContent('answered')
    expect(within(box).getByTestId('handover-answer')).toHaveTextContent('Hotel Bellecour')
    await userEvent.click(within(box).getByTestId('handover-open'))
    expect(await screen.findByTestId('chat-title')).toHaveTextContent('Hotels')
    const back = await screen.findByTestId('chat-origin')
    expect(back).toHaveTextContent('created by “Plan a weekend”')
    await userEvent.click(back)
    await vi.waitFor(() => expect(screen.getByTestId('chat-title')).toHaveTextContent('Plan a weekend'))
  })

  it('keep the parent waiting, with Stop, while they answer', async () => {
    const fake = render({ status: 'waiting', answer: '', waiting: true })
    await userEvent.click(within((await screen.findAllByTestId('conv-item'))[0]).getByTestId('conv-open'))
    const bar = await screen.findByTestId('waiting-bar')
    expect(bar).toHaveTextContent('Waiting for “Hotels” to answer')
    expect(screen.getByTestId('composer-input')).toHaveAttribute('placeholder', 'Waiting for “Hotels” to answer… (Esc stops)')
    expect(screen.queryByTestId('composer-send')).toBeNull()
    await userEvent.click(within(bar).getByTestId('waiting-stop'))
    expect(fake.bridge.chat.stop).toHaveBeenCalledWith('p')
    expect(within(await screen.findByTestId('handover')).getByTestId('handover-status')).toHaveTextContent(/answering|waiting to answer/)
  })
})
