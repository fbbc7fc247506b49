import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { ToolCard } from './ToolCard'

describe('the card of an MCP tool call', () => {
  it('names the server and the tool, and shows the text of the result as text', async () => {
    const fake = createFakeBridge()
    const result = {
      type: 'msg',
      id: 't1',
      createdAt: '2026-06-01T00:00:00Z',
      role: 'tool',
      tool_call_id: 'k1',
      tool_name: 'mcp__everything__get-sum',
      content: JSON.stringify({ ok: true, text: 'The sum of 2 and 3 is 5.\nDone.' }),
    }
    renderWithStores(
      <ToolCard call={{ id: 'k1', type: 'function', function: { name: 'mcp__everything__get-sum', arguments: '{"a":2,"b":3}' } }} result={result} status="ok" durationMs={12} />,
      fake.bridge,
    )
    const card = screen.getByTestId('tool-card')
    expect(card.dataset.tool).toBe('mcp__everything__get-sum')
    expect(card).toHaveTextContent('everything › get-sum')
    expect(within(card).getByTestId('tool-mcp')).toHaveTextContent('MCP')
    await userEvent.click(within(card).getByTestId('tool-toggle'))
    expect(within(card).getByTestId('tool-result-text').textContent).toContain('text:\nThe sum of 2 and 3 is 5.\nDone.')
  })

  it('names the built-in tools in words, their own names under the details', async () => {
    renderWithStores(<ToolCard call={{ id: 'k2', type: 'function', function: { name: 'fs.read', arguments: '{"path":"@project/src/app.go"}' } }} status="running" />, createFakeBridge().bridge)
    const card = screen.getByTestId('tool-card')
    expect(within(card).getByTestId('tool-title')).toHaveTextContent('Read file')
    expect(within(card).getByTestId('tool-words')).toHaveTextContent('Read src/app.go')
    expect(card).not.toHaveTextContent(/fs\.read|k2|\{"/)
    await userEvent.click(within(card).getByTestId('tool-toggle'))
    expect(within(card).getByTestId('tool-ids')).toHaveTextContent('Tool fs.read · call k2')
    expect(screen.queryByTestId('tool-mcp')).toBeNull()
  })
})
