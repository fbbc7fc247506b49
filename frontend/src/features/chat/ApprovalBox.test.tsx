import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { Entry } from '../../bridge'
import { msg } from '../../test/entries'
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

const diff = '--- @project/notes.md\n+++ @project/notes.md\n@@ -1,2 +1,2 @@\n # Notes\n-ship on friday\n+ship on monday\n'

/** A write that waits for approval: the call and its placeholder result. */
function waitingWrite(): Entry[] {
  return [
    msg('u1', 'user', 'move the release to monday'),
    msg('a1', 'assistant', undefined, {
      tool_calls: [{ id: 'w1', type: 'function', function: { name: 'fs.write', arguments: '{"path":"@project/notes.md","content":"…"}' } }],
    }),
    msg('t1', 'tool', '{"ok":false,"error":{"code":"E_APPROVAL_PENDING","message":"not run yet: this call waits for the user\'s approval"}}', {
      tool_call_id: 'w1',
      tool_name: 'fs.write',
      is_error: true,
      approval: {
        state: 'waiting',
        kind: 'write',
        summary: 'change @project/notes.md (24 bytes → 24 bytes)',
        why: "ask mode: changing files waits for the user's approval",
        paths: ['@project/notes.md'],
        diff,
        grant: 'fs.write',
      },
      view: { kind: 'tool-result' },
    }),
  ]
}

function renderChat(entries: Entry[]) {
  const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Release' }, entries }] })
  const r = renderWithStores(<ChatView conversationId="c1" />, fake.bridge)
  r.stores.chat.actions.start() // the workspace follows the conversation's events
  return { fake, ...r }
}

describe('the approval card', () => {
  it('shows what the call will do and its diff, coloured by line, and waits for you', async () => {
    renderChat(waitingWrite())
    const card = await screen.findByTestId('tool-card')
    expect(card.dataset.status).toBe('pending')
    const box = within(card).getByTestId('approval')
    expect(within(box).getByTestId('approval-summary')).toHaveTextContent('change @project/notes.md')
    expect(within(box).getByTestId('approval-status')).toHaveTextContent('waits for your approval')
    const d = within(box).getByTestId('approval-diff')
    expect(d.querySelector('.diff-del')).toHaveTextContent('-ship on friday')
    expect(d.querySelector('.diff-add')).toHaveTextContent('+ship on monday')
    for (const id of ['approval-allow', 'approval-allow-conversation', 'approval-allow-project', 'approval-deny']) expect(within(box).getByTestId(id)).toBeEnabled()
    // The placeholder's error text is not shown as a failure preview.
    expect(within(card).queryByTestId('tool-preview')).toBeNull()
    expect(screen.getByTestId('composer-input')).toHaveAttribute('placeholder', 'A tool call waits for your approval above')
  })

  it.each([
    ['approval-allow', 'allow', 'allowed'],
    ['approval-allow-conversation', 'allow-conversation', 'allowed for this conversation'],
    ['approval-allow-project', 'allow-project', 'always allowed in this project'],
  ])('%s answers %s through the bridge', async (button, decision, status) => {
    const { fake } = renderChat(waitingWrite())
    const card = await screen.findByTestId('tool-card')
    await userEvent.click(within(card).getByTestId(button))
    expect(fake.approvals).toEqual([{ conversationId: 'c1', toolCallId: 'w1', decision, reason: '' }])
    act(() => fake.emit('approval:resolved', { conversationId: 'c1', messageId: 'a1', toolCallId: 'w1', toolName: 'fs.write', resultMessageId: 't1' }))
    await waitFor(() => expect(screen.getByTestId('approval-status')).toHaveTextContent(status))
    expect(screen.queryByTestId('approval-allow')).toBeNull()
  })

  it('Deny takes an optional reason the model receives', async () => {
    const { fake } = renderChat(waitingWrite())
    const card = await screen.findByTestId('tool-card')
    await userEvent.click(within(card).getByTestId('approval-deny'))
    await userEvent.type(within(card).getByTestId('approval-reason'), 'friday is fine')
    await userEvent.click(within(card).getByTestId('approval-deny-send'))
    expect(fake.approvals).toEqual([{ conversationId: 'c1', toolCallId: 'w1', decision: 'deny', reason: 'friday is fine' }])
    act(() => fake.emit('approval:resolved', { conversationId: 'c1', messageId: 'a1', toolCallId: 'w1', toolName: 'fs.write', resultMessageId: 't1' }))
    await waitFor(() => expect(screen.getByTestId('approval')).toHaveAttribute('data-state', 'denied'))
    expect(screen.getByTestId('approval')).toHaveTextContent('Your reason: friday is fine')
  })

  it('says a binary write has no diff, and shows a command with its folder', async () => {
    const entries = waitingWrite()
    entries[2] = { ...entries[2], approval: { state: 'waiting', kind: 'command', summary: 'run the command "go test ./..." in @project', command: 'go test ./...', cwd: '@project' } }
    entries.push(
      msg('a2', 'assistant', undefined, { tool_calls: [{ id: 'w2', type: 'function', function: { name: 'fs.write', arguments: '{}' } }] }),
      msg('t2', 'tool', '{}', { tool_call_id: 'w2', tool_name: 'fs.write', approval: { state: 'stopped', kind: 'write', summary: 'change @project/logo.png', binary: true }, view: { kind: 'tool-result' } }),
    )
    renderChat(entries)
    const boxes = await screen.findAllByTestId('approval')
    expect(within(boxes[0]).getByTestId('approval-command')).toHaveTextContent('$ go test ./... in @project')
    expect(boxes[1]).toHaveTextContent('The content is binary: no diff is shown.')
    expect(boxes[1]).toHaveTextContent('stopped before an answer: not run')
    expect(within(boxes[1]).queryByTestId('approval-allow')).toBeNull()
  })

  it('the composer shows the conversation approval mode and changes it', async () => {
    const { fake } = renderChat([msg('u1', 'user', 'hi')])
    const select = (await screen.findByTestId('approval-mode')) as HTMLSelectElement
    expect(select.value).toBe('ask')
    await userEvent.selectOptions(select, 'auto-edit')
    expect(fake.approvalModes.get('c1')).toBe('auto-edit')
    await waitFor(() => expect((screen.getByTestId('approval-mode') as HTMLSelectElement).value).toBe('auto-edit'))
  })
})
