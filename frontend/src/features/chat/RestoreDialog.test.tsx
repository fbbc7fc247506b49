import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { Entry } from '../../bridge'
import { msg } from '../../test/entries'
import { createFakeBridge, type FakeChange } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { useStore, useStores } from '../../stores'
import { ChatView } from './ChatView'

// jsdom has no layout: give elements a size so the virtual list renders rows.
const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})

const write = (callId: string, path: string): Entry[] => [
  msg(`a-${callId}`, 'assistant', undefined, {
    tool_calls: [{ id: callId, type: 'function', function: { name: 'fs.write', arguments: JSON.stringify({ path: `@project/${path}`, content: '…' }) } }],
  }),
  msg(`t-${callId}`, 'tool', '{"ok":true}', { tool_call_id: callId, tool_name: 'fs.write', view: { kind: 'tool-result' } }),
]

/** Two turns: the first writes notes.md, the second plan.md and todo.md. */
function conversation(): Entry[] {
  return [
    msg('u1', 'user', 'write the notes'),
    ...write('w1', 'notes.md'),
    msg('r1', 'assistant', 'done'),
    msg('u2', 'user', 'now the plan'),
    ...write('w2', 'plan.md'),
    ...write('w3', 'todo.md'),
    msg('r2', 'assistant', 'done too'),
  ]
}

const changes: FakeChange[] = [
  { conversationId: 'c1', messageId: 'u1', toolCallId: 'w1', path: 'notes.md', before: null, after: 'notes v1' },
  { conversationId: 'c1', messageId: 'u2', toolCallId: 'w2', path: 'plan.md', before: 'plan v0', after: 'plan v1' },
  { conversationId: 'c1', messageId: 'u2', toolCallId: 'w3', path: 'todo.md', before: 'todo v0', after: 'todo v1' },
]

/** The selected conversation, as the workspace shows it (one ChatView
 * whose conversation changes). */
function Selected() {
  const { conversations } = useStores()
  const id = useStore(conversations, (s) => s.selectedId)
  return id ? <ChatView conversationId={id} /> : null
}

function renderChat(files: Record<string, string>) {
  const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Plans' }, entries: conversation() }], files, changes })
  const r = renderWithStores(<Selected />, fake.bridge)
  r.stores.conversations.actions.select('c1')
  return { fake, ...r }
}

const userRow = async (id: string) => (await screen.findAllByTestId('msg-user')).find((el) => el.dataset.id === id)!

describe('Rewind to here', () => {
  it('lists the files it will restore and those you changed since, kept unless ticked', async () => {
    const { fake, stores } = renderChat({ 'notes.md': 'notes v1', 'plan.md': 'plan v1', 'todo.md': 'todo edited by me' })
    const user = userEvent.setup()
    await user.click(within(await userRow('u2')).getByTestId('msg-rewind'))
    const dialog = await screen.findByTestId('restore-dialog')
    await waitFor(() => expect(within(dialog).getByTestId('restore-restored')).toHaveTextContent('plan.md'))
    expect(within(dialog).getByTestId('restore-restored')).not.toHaveTextContent('notes.md')
    const kept = within(dialog).getByTestId('restore-kept')
    expect(kept).toHaveTextContent('todo.md')
    expect(within(kept).getByTestId('restore-force')).not.toBeChecked()
    // Nothing changes until confirmed.
    expect(fake.files.get('plan.md')).toBe('plan v1')

    await user.click(within(dialog).getByTestId('restore-confirm'))
    await waitFor(() => expect(screen.queryByTestId('restore-dialog')).toBeNull())
    expect(fake.files.get('plan.md')).toBe('plan v0')
    expect(fake.files.get('todo.md')).toBe('todo edited by me')
    expect(fake.files.get('notes.md')).toBe('notes v1')
    // Both by default: the fork ending before the message is opened.
    expect(fake.bridge.conversations.rewind).toHaveBeenLastCalledWith('c1', 'u2', { what: 'both', forcePaths: [] })
    const forkId = stores.conversations.getState().selectedId
    expect(forkId).not.toBe('c1')
    expect(fake.convs.get(forkId!)?.entries.map((e) => e.id).at(-1)).toBe('r1')
    // The fork is shown; nothing asked about the old message in it.
    await waitFor(() => expect(screen.getByTestId('chat-view').dataset.conversation).toBe(forkId))
    await new Promise((r) => setTimeout(r, 50))
    expect(fake.bridge.conversations.rewind).toHaveBeenCalledTimes(2)
    expect(stores.conversations.getState().error).toBeNull()
    expect(screen.queryByTestId('restore-dialog')).toBeNull()
  })

  it('restores a ticked file changed since, and the files only when asked', async () => {
    const { fake } = renderChat({ 'notes.md': 'notes v1', 'plan.md': 'plan v1', 'todo.md': 'todo edited by me' })
    const user = userEvent.setup()
    await user.click(within(await userRow('u1')).getByTestId('msg-rewind'))
    const dialog = await screen.findByTestId('restore-dialog')
    await user.click(within(dialog).getByTestId('restore-what-files'))
    expect(within(dialog).getByTestId('restore-what-hint')).toHaveTextContent('the conversation stays as it is')
    await user.click(await within(dialog).findByTestId('restore-force'))
    await user.click(within(dialog).getByTestId('restore-confirm'))
    await waitFor(() => expect(screen.queryByTestId('restore-dialog')).toBeNull())
    expect(fake.bridge.conversations.rewind).toHaveBeenLastCalledWith('c1', 'u1', { what: 'files', forcePaths: ['todo.md'] })
    expect(fake.files.has('notes.md')).toBe(false)
    expect(fake.files.get('plan.md')).toBe('plan v0')
    expect(fake.files.get('todo.md')).toBe('todo v0')
    expect([...fake.convs.keys()]).toEqual(['c1'])
  })

  it('says when there is nothing to restore, and Cancel changes nothing', async () => {
    const { fake } = renderChat({ 'notes.md': 'notes v1', 'plan.md': 'plan v0', 'todo.md': 'todo v0' })
    const user = userEvent.setup()
    await user.click(within(await userRow('u2')).getByTestId('msg-rewind'))
    const dialog = await screen.findByTestId('restore-dialog')
    await user.click(within(dialog).getByTestId('restore-what-files'))
    expect(await within(dialog).findByTestId('restore-nothing')).toBeInTheDocument()
    expect(within(dialog).getByTestId('restore-confirm')).toBeDisabled()
    await user.click(within(dialog).getByTestId('restore-cancel'))
    expect(screen.queryByTestId('restore-dialog')).toBeNull()
    expect(fake.bridge.conversations.rewind).toHaveBeenCalledTimes(1) // the plan only
  })
})

describe('Undo this change', () => {
  /** The card of the write to path. */
  const card = async (path: string) => {
    await screen.findAllByTestId('tool-card')
    return screen.getAllByTestId('tool-card').find((c) => within(c).getByTestId('tool-words').textContent?.includes(path))!
  }

  it('restores the one write, then redoes it', async () => {
    const { fake } = renderChat({ 'notes.md': 'notes v1', 'plan.md': 'plan v1', 'todo.md': 'todo v1' })
    const user = userEvent.setup()
    const c = await card('plan.md')
    await user.click(within(c).getByTestId('tool-undo'))
    const dialog = await screen.findByTestId('restore-dialog')
    expect(within(dialog).queryByTestId('restore-what-both')).toBeNull()
    await waitFor(() => expect(within(dialog).getByTestId('restore-restored')).toHaveTextContent('plan.md'))
    await user.click(within(dialog).getByTestId('restore-confirm'))
    await waitFor(() => expect(within(c).getByTestId('tool-undone')).toHaveTextContent('Undone: plan.md restored'))
    expect(fake.files.get('plan.md')).toBe('plan v0')
    expect(fake.files.get('todo.md')).toBe('todo v1')
    await user.click(within(c).getByTestId('tool-redo'))
    await waitFor(() => expect(within(c).getByTestId('tool-undo')).toBeInTheDocument())
    expect(fake.files.get('plan.md')).toBe('plan v1')
  })

  it('keeps a file changed since unless ticked; with nothing ticked there is nothing to do', async () => {
    const { fake } = renderChat({ 'notes.md': 'notes v1', 'plan.md': 'plan v1', 'todo.md': 'todo edited by me' })
    const user = userEvent.setup()
    const c = await card('todo.md')
    await user.click(within(c).getByTestId('tool-undo'))
    const dialog = await screen.findByTestId('restore-dialog')
    await within(dialog).findByTestId('restore-kept')
    expect(within(dialog).getByTestId('restore-confirm')).toBeDisabled()
    await user.click(within(dialog).getByTestId('restore-force'))
    await user.click(within(dialog).getByTestId('restore-confirm'))
    await waitFor(() => expect(fake.files.get('todo.md')).toBe('todo v0'))
    expect(fake.bridge.conversations.undoChange).toHaveBeenLastCalledWith('c1', 'w3', { forcePaths: ['todo.md'] })
  })

  it('is offered only on a finished write or patch', async () => {
    const fake = createFakeBridge({
      conversations: [
        {
          meta: { id: 'c1', title: 'Read' },
          entries: [
            msg('u1', 'user', 'read it'),
            msg('a1', 'assistant', undefined, { tool_calls: [{ id: 'r1', type: 'function', function: { name: 'fs.read', arguments: '{"path":"@project/a.md"}' } }] }),
            msg('t1', 'tool', 'hello', { tool_call_id: 'r1', tool_name: 'fs.read', view: { kind: 'tool-result' } }),
            msg('a2', 'assistant', undefined, { tool_calls: [{ id: 'w9', type: 'function', function: { name: 'fs.write', arguments: '{"path":"@project/a.md"}' } }] }),
            msg('t2', 'tool', '{"ok":false}', { tool_call_id: 'w9', tool_name: 'fs.write', is_error: true, view: { kind: 'tool-result' } }),
          ],
        },
      ],
    })
    renderWithStores(<ChatView conversationId="c1" />, fake.bridge)
    expect(await screen.findAllByTestId('tool-card')).toHaveLength(2)
    expect(screen.queryByTestId('tool-undo')).toBeNull()
  })
})
