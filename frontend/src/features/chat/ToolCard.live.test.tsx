import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { ToolCard } from './ToolCard'

const call = { id: 'sh1', type: 'function' as const, function: { name: 'shell.run', arguments: '{"command":"make"}' } }

describe('the card of a running command', () => {
  it('streams its output with colours as classes, never as HTML, and stops it', async () => {
    const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Chat' }, entries: [] }] })
    const { stores } = renderWithStores(<ToolCard call={call} status="running" />, fake.bridge)
    stores.chat.actions.start()
    await act(() => stores.chat.actions.open('c1'))
    act(() => stores.chat.setState({ streaming: true }))
    const card = screen.getByTestId('tool-card')
    expect(within(card).getByTestId('tool-stop')).toBeInTheDocument()

    act(() => {
      fake.emit('tool:output', { conversationId: 'c1', toolCallId: 'sh1', toolName: 'shell.run', data: 'building\n\x1b[1;31merror\x1b[0m: <img src=x onerror=alert(1)>\n' })
    })
    const text = within(card).getByTestId('tool-live-text')
    expect(text.textContent).toBe('building\nerror: <img src=x onerror=alert(1)>\n')
    expect(text.querySelector('img')).toBeNull()
    const red = text.querySelector('span.ansi-fg-1')
    expect(red?.textContent).toBe('error')
    expect(red?.className).toBe('ansi-fg-1 ansi-bold')

    await userEvent.click(within(card).getByTestId('tool-stop'))
    expect(fake.bridge.chat.stop).toHaveBeenCalledWith('c1')
  })

  it('shows the result as before once it is there, and says a stopped command was stopped', () => {
    const fake = createFakeBridge()
    const result = {
      type: 'msg',
      id: 't1',
      createdAt: '2026-06-01T00:00:00Z',
      role: 'tool',
      tool_call_id: 'sh1',
      tool_name: 'shell.run',
      is_error: true,
      content: JSON.stringify({ ok: false, error: { code: 'E_COMMAND_STOPPED', message: 'the command was stopped' }, exitCode: -1, output: 'line 1\n', stopped: true }),
    }
    renderWithStores(<ToolCard call={call} result={result} status="error" />, fake.bridge)
    expect(screen.getByTestId('tool-status')).toHaveTextContent('stopped')
    expect(screen.queryByTestId('tool-live')).toBeNull()
    expect(screen.queryByTestId('tool-stop')).toBeNull()
    expect(screen.getByTestId('tool-preview')).toHaveTextContent('the command was stopped')
    expect(screen.getByTestId('tool-preview')).not.toHaveTextContent('E_COMMAND_STOPPED')
  })

  it('an allowed command runs in its card while the log still holds the request', async () => {
    const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Chat' }, entries: [] }] })
    const request = { state: 'waiting', kind: 'command', summary: 'run the command "make"', command: 'make', cwd: '@project' }
    const placeholder = {
      type: 'msg',
      id: 't1',
      createdAt: '2026-06-01T00:00:00Z',
      role: 'tool',
      tool_call_id: 'sh1',
      tool_name: 'shell.run',
      is_error: true,
      content: '{"ok":false,"error":{"code":"E_APPROVAL_PENDING","message":"not run yet"}}',
      approval: request,
    }
    const { stores } = renderWithStores(<ToolCard call={call} result={placeholder as never} status="pending" />, fake.bridge)
    stores.chat.actions.start()
    await act(() => stores.chat.actions.open('c1'))
    act(() => stores.chat.setState({ streaming: true }))
    expect(screen.getByTestId('approval')).toHaveAttribute('data-state', 'waiting')
    expect(screen.queryByTestId('tool-stop')).toBeNull()

    act(() => {
      fake.emit('approval:resolved', { conversationId: 'c1', messageId: 'a1', toolCallId: 'sh1', toolName: 'shell.run', resultMessageId: 't1', approval: { ...request, state: 'allowed', answer: 'allow' } as never })
      fake.emit('tool:output', { conversationId: 'c1', toolCallId: 'sh1', toolName: 'shell.run', data: 'compiling\n' })
    })
    expect(screen.getByTestId('approval')).toHaveAttribute('data-state', 'allowed')
    expect(screen.queryByTestId('approval-allow')).toBeNull()
    expect(screen.getByTestId('tool-card')).toHaveAttribute('data-status', 'running')
    expect(screen.getByTestId('tool-live-text').textContent).toBe('compiling\n')
    expect(screen.getByTestId('tool-stop')).toBeInTheDocument()
  })
})
