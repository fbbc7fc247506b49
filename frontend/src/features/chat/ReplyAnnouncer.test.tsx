import { act, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { Entry } from '../../bridge'
import { msg } from '../../test/entries'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { ChatView } from './ChatView'
import { replyAnnouncement } from './ReplyAnnouncer'

const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})

describe('the reply announcer', () => {
  it.each<[string, Entry[], string]>([
    ['an answer', [msg('u', 'user', 'hi'), msg('a', 'assistant', 'Hello **there**.')], 'Reply finished: Hello there.'],
    ['code said as code', [msg('u', 'user', 'hi'), msg('a', 'assistant', 'Like this:\n\n```go\nfunc main() {}\n```\n\nDone.')], 'Reply finished: Like this: (code) Done.'],
    ['the words after tool calls', [msg('u', 'user', 'hi'), msg('a', 'assistant', 'I read it.'), msg('a2', 'assistant', ''), msg('t', 'tool', 'x')], 'Reply finished: I read it.'],
    ['a failure', [msg('u', 'user', 'hi'), msg('x', 'assistant', 'LLM_ERROR', { partType: 'error' })], 'The reply failed.'],
    ['nothing after the question', [msg('a', 'assistant', 'old'), msg('u', 'user', 'hi')], ''],
  ])('says %s', (_, entries, want) => {
    expect(replyAnnouncement(entries)).toBe(want)
  })

  it('cuts a long answer short', () => {
    const said = replyAnnouncement([msg('a', 'assistant', 'word '.repeat(200))])
    expect(said.length).toBeLessThan(270)
    expect(said.endsWith('…')).toBe(true)
  })

  it('announces in a polite live region when the reply ends, not while it streams', async () => {
    const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Plans' }, entries: [] }] })
    renderWithStores(<ChatView conversationId="c1" />, fake.bridge).stores.chat.actions.start() // as the workspace does
    const region = screen.getByTestId('reply-announcer')
    expect(region).toHaveAttribute('aria-live', 'polite')
    expect(region).toHaveAttribute('role', 'status')
    await userEvent.type(await screen.findByTestId('composer-input'), 'Capital of France?{Enter}')
    await vi.waitFor(() => expect(fake.sent).toHaveLength(1))
    expect(region).toHaveTextContent('')
    act(() => fake.append('c1', msg('a1', 'assistant', 'Paris.')))
    act(() => fake.finish('c1'))
    await vi.waitFor(() => expect(region).toHaveTextContent('Reply finished: Paris.'))
  })
})
